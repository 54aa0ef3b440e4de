/**
 * `cubeform import --format pulumi`: a TypeScript Pulumi program that ADOPTS the live space: every resource names the live id it takes over
 * (`adoptId`): the first `pulumi up` checks each against the live values and sends no mutation; later ones show no changes (Pulumi's own `import`
 * cannot do this for a dynamic provider).
 */
import { powerSide, type ObservedCube, type ObservedState } from "../../engine/index.js";
import type { Domain, TcpMapping } from "../../client/api.js";
import { codeComment as comment } from "./escape.js";
import {
  cubeFields,
  cubesInOrder,
  domainSettings,
  domainsInOrder,
  duplicatedNames,
  leftOutWebhooks,
  portFields,
  publishedPorts,
  SSH_KEY_VARIABLE,
  type Plain,
} from "./imported.js";

/** Marks a value written as code, not as a literal. */
class Code {
  constructor(readonly text: string) {}
}

export function importedPulumiProgram(observed: ObservedState, now: Date): string {
  const cubes = cubesInOrder(observed);
  const names = new UniqueNames();
  const duplicated = duplicatedNames(cubes);
  const blocks = cubes.map((observedCube) => cubeBlock(observedCube, duplicated.has(observedCube.cube.name), names));
  return [header(observed, now), ...blocks].join("\n");
}

function header(observed: ObservedState, now: Date): string {
  return `/**
 * Imported from space ${comment(observed.spaceId)} by \`cubeform import --format pulumi\` on ${now.toISOString()}.
 *
 * Every resource names the live id it adopts (adoptId). The first \`pulumi up\` takes each one over
 * after checking that it matches what is declared here (nothing is changed; a mismatch fails and
 * names the fields). Later runs of \`pulumi up\` show no changes until you edit this program.
 * Not readable from the API, so not written here: SSH public keys (used only when a cube is
 * created or replaced), userData (cloud-init) and basic-auth passwords.${leftOutWebhooks(observed, comment)
   .map((line) => `\n *${line}`)
   .join("")}
 *
 *   pulumi config set sshPublicKey "$(cat ~/.ssh/id_ed25519.pub)"   # or export ${SSH_KEY_VARIABLE}
 *   pulumi up
 *
 * The program is ESM TypeScript, as examples/pulumi: package.json has "type": "module", and
 * Pulumi.yaml runs it with tsx (runtime.options: typescript: false, nodeargs: "--import=tsx").
 */
import * as pulumi from "@pulumi/pulumi";
import { Cube, Domain, TcpMapping } from "cubeform/provider";

const config = new pulumi.Config();
const sshPublicKey = config.get("sshPublicKey") ?? process.env.${SSH_KEY_VARIABLE};
if (!sshPublicKey) {
  throw new Error('Set the SSH public key: pulumi config set sshPublicKey "$(cat ~/.ssh/id_ed25519.pub)" (or export ${SSH_KEY_VARIABLE}).');
}
`;
}

function cubeBlock(observed: ObservedCube, pinned: boolean, names: UniqueNames): string {
  const { cube } = observed;
  const resourceName = pinned ? `${cube.name}-${cube.id}` : cube.name;
  const variable = names.variable(cube.name);
  const inputs = cubeFields(observed, { adoptId: cube.id, name: cube.name }, { sshPublicKey: new Code("sshPublicKey") });
  const lines = [`const ${variable} = new Cube(${literal(resourceName)}, ${literal(inputs)});`];
  if (powerSide(cube.state) === "error") lines.unshift(`// State "error": power is left unmanaged.`);
  const cubeRef = new Code(`${variable}.cubeId`);
  for (const domain of domainsInOrder(observed)) lines.push(domainStatement(domain, resourceName, cubeRef));
  for (const mapping of publishedPorts(observed)) lines.push(mappingStatement(mapping, resourceName, cubeRef));
  return `\n// ${comment(cube.name)} (id ${comment(cube.id)})\n${lines.join("\n")}\n`;
}

function domainStatement(domain: Domain, cubeResource: string, cubeRef: Code): string {
  const name = `${cubeResource}-${domain.hostname.replace(/^\*\./, "wildcard.")}`;
  if (domain.port === null) {
    return `// ${comment(domain.hostname)} (id ${comment(`${domain.cubeId}/${domain.id}`)}): the API shows no port for it; declare it with the port it routes to and adoptId ${literal(`${domain.cubeId}/${domain.id}`)}.`;
  }
  const inputs = {
    adoptId: `${domain.cubeId}/${domain.id}`,
    cubeId: cubeRef,
    hostname: domain.hostname,
    port: domain.port,
    ...domainSettings(domain),
  };
  const note = domain.basicAuthUser
    ? `// The password cannot be read: add basicAuthPassword: config.requireSecret("...") to manage it.\n`
    : "";
  return `${note}new Domain(${literal(name)}, ${literal(inputs)});`;
}

function mappingStatement(mapping: TcpMapping, cubeResource: string, cubeRef: Code): string {
  const inputs = { adoptId: `${mapping.cubeId}/${mapping.id}`, cubeId: cubeRef, cubePort: mapping.cubePort, ...portFields(mapping) };
  return `new TcpMapping(${literal(`${cubeResource}-port-${mapping.cubePort}`)}, ${literal(inputs)});`;
}

/** Words a `const` cannot be named (a cube may be named "delete"). */
const RESERVED = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await async of arguments eval undefined".split(
    " ",
  ),
);

/** TypeScript identifiers from cube names ("web-1" → web1), never two alike. */
class UniqueNames {
  private readonly taken = new Set(["pulumi", "config", "sshPublicKey", "Cube", "Domain", "TcpMapping"]);

  variable(name: string): string {
    const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
    let base = words.map((word, i) => (i === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join("") || "cube";
    if (/^[0-9]/.test(base) || RESERVED.has(base)) base = `cube${base[0]!.toUpperCase()}${base.slice(1)}`;
    let candidate = base;
    for (let n = 2; this.taken.has(candidate); n++) candidate = `${base}${n}`;
    this.taken.add(candidate);
    return candidate;
  }
}

/** A TypeScript literal: objects with plain keys, short arrays and maps on one line. */
function literal(value: unknown, indent = ""): string {
  if (value instanceof Code) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => literal(item, indent)).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Plain).filter(([, member]) => member !== undefined);
    const inner = `${indent}  `;
    const parts = entries.map(
      ([key, member]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${literal(member, inner)}`,
    );
    const flat = `{ ${parts.join(", ")} }`;
    if (flat.length + indent.length <= 100 && !parts.some((part) => part.includes("\n"))) return entries.length === 0 ? "{}" : flat;
    return `{\n${parts.map((part) => `${inner}${part},`).join("\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}
