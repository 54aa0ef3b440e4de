/**
 * `cubeform import`: a desired-state file describing the live space (a plan against it shows no changes), to adopt an existing fleet. What the API
 * cannot show (SSH keys, cloud-init, basic-auth passwords) is explained in comments.
 */
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { Document, isMap, isScalar, isSeq, type Node } from "yaml";
import { powerSide, type ObservedCube, type ObservedState } from "../../engine/index.js";
import { API_VERSION } from "../../schema/desired.js";
import type { Day2Context } from "../session/day2.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import {
  cubeFields,
  cubesInOrder,
  domainSettings,
  domainsInOrder,
  duplicatedNames,
  findGroups,
  leftOutWebhooks,
  memberTemplate,
  portFields,
  publishedPorts,
  SSH_KEY_VARIABLE,
  type ImportedGroup,
  type Plain,
} from "../render/imported.js";
import { observeFor, withConnection } from "../session/session.js";
import { writeFileAtomic } from "../../system/files.js";

export type ImportFormat = "yaml" | "pulumi";

export interface ImportContext extends Omit<Day2Context, "format"> {
  /** undefined: stdout. */
  output?: string;
  /** yaml: a desired-state file; pulumi: a TypeScript Pulumi program that adopts the live resources. */
  format: ImportFormat;
  force: boolean;
}

export async function runImport(ctx: ImportContext, io: CliIo): Promise<number> {
  const target = ctx.output === undefined ? undefined : isAbsolute(ctx.output) ? ctx.output : resolve(ctx.cwd, ctx.output);
  if (target !== undefined && !ctx.force && existsSync(target)) {
    throw new CliError("output_exists", `${ctx.output} already exists; pass --force to overwrite it`);
  }
  const observed = await withConnection({ ...ctx, files: [], format: "text" }, io, (conn) =>
    observeFor(conn, [], undefined, { webhooks: true }),
  );
  const text =
    ctx.format === "pulumi"
      ? (await import("../render/import-pulumi.js")).importedPulumiProgram(observed, new Date())
      : importedYaml(observed, new Date());
  if (target === undefined) io.stdout.write(text);
  else await writeFileAtomic(target, text, { overwrite: ctx.force });
  writeLine(
    io.stderr,
    escapeText(`Imported ${countLine(observed)} from space ${observed.spaceId}${ctx.output ? ` into ${ctx.output}` : ""}.`),
  );
  if (ctx.output) writeLine(io.stderr, nextStep(ctx.format, ctx.output));
  return 0;
}

function nextStep(format: ImportFormat, output: string): string {
  if (format === "pulumi") {
    return `Next: pulumi config set sshPublicKey "$(cat ~/.ssh/id_ed25519.pub)" and run \`pulumi up\` in the program's directory (it adopts the live resources without changing them; later runs show no changes).`;
  }
  return `Next: export ${SSH_KEY_VARIABLE}="$(cat ~/.ssh/id_ed25519.pub)" and run \`cubeform plan -f ${output}\` (it should show no changes).`;
}

function countLine(observed: ObservedState): string {
  const cubes = observed.cubes.length;
  const domains = observed.cubes.reduce((n, c) => n + c.domains.length, 0);
  const ports = observed.cubes.reduce((n, c) => n + publishedPorts(c).length, 0);
  return `${cubes} ${cubes === 1 ? "cube" : "cubes"} (${domains} ${domains === 1 ? "domain" : "domains"}, ${ports} ${ports === 1 ? "port" : "ports"})`;
}

// ---------------------------------------------------------------- the document (pure)

export function importedYaml(observed: ObservedState, now: Date): string {
  const cubes = cubesInOrder(observed);
  const duplicated = duplicatedNames(cubes);
  const groups = findGroups(cubes, (c) => cubeEntry(c, false));
  const groupOf = new Map(groups.flatMap((group) => group.members.map((member) => [member, group] as const)));
  // A group is written where its first member would be; its other members are in it.
  const entries = cubes.flatMap((c): { observed: ObservedCube; entry: Plain; group?: ImportedGroup }[] => {
    const group = groupOf.get(c);
    if (group === undefined) return [{ observed: c, entry: cubeEntry(c, duplicated.has(c.cube.name)) }];
    return group.members[0] === c ? [{ observed: c, entry: groupEntry(group), group }] : [];
  });
  const doc = new Document({
    apiVersion: API_VERSION,
    defaults: { sshPublicKey: `\${env:${SSH_KEY_VARIABLE}}` },
    cubes: entries.map((e) => e.entry),
  });
  doc.commentBefore = header(observed, now);
  commentKey(doc.contents, "defaults", DEFAULTS_COMMENT);
  entries.forEach((e, i) => decorateCube(doc, e.observed, i, e.group));
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** NAME-1 … NAME-N with one spec: `replicas: N`, a member's own name in hostnames and port labels written `{name}`. */
function groupEntry(group: ImportedGroup): Plain {
  const first = group.members[0] as ObservedCube;
  return { name: group.name, replicas: group.members.length, ...memberTemplate(cubeEntry(first, false), first.cube.name) };
}

function header(observed: ObservedState, now: Date): string {
  return [
    ` Imported from space ${observed.spaceId} by \`cubeform import\` on ${now.toISOString()}.`,
    ` A plan against this file shows no changes; from now on the file is the source of truth.`,
    ` Not readable from the API, so not written here: SSH public keys (see defaults), userData`,
    ` (cloud-init; only used when a cube is created) and basic-auth passwords.`,
    ...leftOutWebhooks(observed, escapeText),
  ].join("\n");
}

const DEFAULTS_COMMENT = [
  ` The API never returns a cube's SSH key. The key below is used only when a cube is created or`,
  ` replaced; existing cubes are never compared against it. Set ${SSH_KEY_VARIABLE} to your public`,
  ` key, or replace the line with sshPublicKeyFile: path/to/key.pub (relative to this file).`,
].join("\n");

function cubeEntry(observed: ObservedCube, pinId: boolean): Plain {
  const domains = domainsInOrder(observed);
  const ports = publishedPorts(observed);
  return {
    ...cubeFields(observed, pinId ? { name: observed.cube.name, id: observed.cube.id } : { name: observed.cube.name }),
    // The file requires a port; a live domain without one gets a comment (see decorateCube).
    ...(domains.length > 0
      ? { domains: domains.map((d) => ({ hostname: d.hostname, ...(d.port !== null ? { port: d.port } : {}), ...domainSettings(d) })) }
      : {}),
    ...(ports.length > 0 ? { ports: ports.map((m) => ({ cubePort: m.cubePort, ...portFields(m) })) } : {}),
  };
}

function decorateCube(doc: Document, observed: ObservedCube, index: number, group?: ImportedGroup): void {
  const node = doc.getIn(["cubes", index], true) as Node | undefined;
  if (node === undefined) return;
  const power = powerSide(observed.cube.state);
  node.commentBefore =
    group === undefined
      ? ` id ${observed.cube.id}${power === "error" ? " (state error: power is left unmanaged)" : ""}`
      : ` group of ${group.members.length} (${group.name}-1 … ${group.name}-${group.members.length}), ids ${group.members.map((m) => m.cube.id).join(", ")}`;
  flowStyle(doc.getIn(["cubes", index, "resources"], true));
  decorateDomains(doc, observed, index);
  publishedPorts(observed).forEach((_, p) => flowStyle(doc.getIn(["cubes", index, "ports", p, "allow"], true)));
}

function decorateDomains(doc: Document, observed: ObservedCube, index: number): void {
  domainsInOrder(observed).forEach((domain, d) => {
    const node = doc.getIn(["cubes", index, "domains", d], true);
    for (const key of ["ipAllowList", "ipDenyList"]) flowStyle(doc.getIn(["cubes", index, "domains", d, key], true));
    if (domain.port === null) commentKey(node, "hostname", " The API shows no port for this domain: add the port it routes to.");
    if (domain.basicAuthUser)
      commentKey(node, "basicAuthUser", " The password cannot be read: add basicAuthPassword: ${env:NAME} to manage it.");
  });
}

/** Short maps and CIDR lists read better on one line. */
function flowStyle(node: unknown): void {
  if (isMap(node) || isSeq(node)) node.flow = true;
}

function commentKey(map: unknown, key: string, comment: string): void {
  if (!isMap(map)) return;
  const pair = map.items.find((item) => isScalar(item.key) && item.key.value === key);
  if (pair && isScalar(pair.key)) pair.key.commentBefore = comment;
}
