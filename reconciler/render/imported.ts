/** What both formats of `cubeform import` write the same way (YAML: actions/import.ts; Pulumi: render/import-pulumi.ts). */
import { canonical, powerSide, sshMapping, type ObservedCube, type ObservedState } from "../../engine/index.js";
import type { Domain, TcpMapping } from "../../client/api.js";
import { DOMAIN_DECLARED_SETTINGS } from "../../schema/api.js";
import { DesiredDomain } from "../../schema/desired.js";

export type Plain = Record<string, unknown>;

/** The variable the imported file reads the SSH key from (the API never returns keys). */
export const SSH_KEY_VARIABLE = "CUBE_SSH_PUBLIC_KEY";

/** By name, then id: the same space imports to the same text. */
export function cubesInOrder(observed: ObservedState): ObservedCube[] {
  return [...observed.cubes].sort((a, b) => a.cube.name.localeCompare(b.cube.name) || a.cube.id.localeCompare(b.cube.id));
}

export function duplicatedNames(cubes: ObservedCube[]): Set<string> {
  const seen = new Set<string>();
  const duplicated = new Set<string>();
  for (const { cube } of cubes) (seen.has(cube.name) ? duplicated : seen).add(cube.name);
  return duplicated;
}

/**
 * The header lines naming the space's webhook endpoints, which import does not write: their
 * signing secret is returned only when an endpoint is created, so a file cannot adopt one.
 */
export function leftOutWebhooks(observed: ObservedState, escape: (text: string) => string): string[] {
  const webhooks = [...(observed.webhooks ?? [])].sort((a, b) => a.url.localeCompare(b.url));
  if (webhooks.length === 0) return [];
  return [
    ` Not written: the space's ${webhooks.length === 1 ? "webhook endpoint" : `${webhooks.length} webhook endpoints`} (the API returns a signing secret only`,
    ` when an endpoint is created, so a file cannot take one over); declare them to replace them:`,
    ...webhooks.map((webhook) => `   ${escape(webhook.url)} (${webhook.events.map(escape).join(", ")})`),
  ];
}

/** A cube's declared fields in the order they are written: `head` first, `afterResources` after its resources. */
export function cubeFields(observed: ObservedCube, head: Plain, afterResources: Plain = {}): Plain {
  const { cube } = observed;
  const power = powerSide(cube.state);
  const ssh = sshMapping(observed);
  return {
    ...head,
    image: cube.image,
    ...(cube.region !== undefined ? { region: cube.region } : {}),
    resources: { vcpu: cube.resources.vcpu, ramGb: cube.resources.ramGb, diskGb: cube.resources.diskGb },
    ...afterResources,
    terminationProtection: cube.terminationProtection,
    ...(power === "running" || power === "stopped" ? { power } : {}),
    ...(ssh !== undefined ? { sshPort: ssh.cubePort } : {}),
  };
}

/** The domain settings to write: empty values mean "not set"; values the file cannot spell stay unmanaged. */
export function domainSettings(domain: Domain): Plain {
  return Object.fromEntries(
    DOMAIN_DECLARED_SETTINGS.filter(
      (key) => canonical(domain[key]) !== null && DesiredDomain.shape[key].safeParse(domain[key]).success,
    ).map((key) => [key, domain[key]]),
  );
}

export const domainsInOrder = (observed: ObservedCube): Domain[] =>
  [...observed.domains].sort((a, b) => a.hostname.localeCompare(b.hostname));

export const publishedPorts = (observed: ObservedCube): TcpMapping[] =>
  observed.tcpMappings.filter((m) => !m.isSsh).sort((a, b) => a.cubePort - b.cubePort);

/** A published port's fields after its cubePort. */
export function portFields(mapping: TcpMapping): Plain {
  return {
    ...(mapping.label !== null ? { label: mapping.label } : {}),
    udp: mapping.udp,
    ...(mapping.allow.length > 0 ? { allow: mapping.allow } : {}),
  };
}

/** Live cubes NAME-1 … NAME-N (N ≥ 2) written as one entry with `replicas: N`. */
export interface ImportedGroup {
  name: string;
  members: ObservedCube[];
}

const MEMBER_NAME = /^(.+)-([1-9]\d*)$/;

/**
 * The groups the live names form: NAME-1 … NAME-N, every index once, no live cube named NAME itself, and the same entry for every member once its
 * own name in a hostname or port label is read as `{name}`. Anything else stays cube by cube.
 */
export function findGroups(cubes: readonly ObservedCube[], entryOf: (observed: ObservedCube) => Plain): ImportedGroup[] {
  const names = new Set(cubes.map((c) => c.cube.name));
  const byBase = new Map<string, Map<number, ObservedCube[]>>();
  for (const observed of cubes) {
    const match = MEMBER_NAME.exec(observed.cube.name);
    if (match === null) continue;
    const [, base, index] = match as unknown as [string, string, string];
    const members = byBase.get(base) ?? new Map<number, ObservedCube[]>();
    members.set(Number(index), [...(members.get(Number(index)) ?? []), observed]);
    byBase.set(base, members);
  }
  const groups: ImportedGroup[] = [];
  for (const [base, members] of byBase) {
    const count = members.size;
    if (count < 2 || names.has(base) || [...members.values()].some((same) => same.length > 1)) continue;
    const ordered = Array.from({ length: count }, (_, i) => members.get(i + 1)?.[0]);
    if (ordered.some((m) => m === undefined)) continue;
    const templates = (ordered as ObservedCube[]).map((m) => JSON.stringify(memberTemplate(entryOf(m), m.cube.name)));
    if (templates.every((t) => t === templates[0])) groups.push({ name: base, members: ordered as ObservedCube[] });
  }
  return groups;
}

/** A member's entry as its group's: no name, and its own name in hostnames and port labels as `{name}`. */
export function memberTemplate(entry: Plain, memberName: string): Plain {
  const { name: _name, ...rest } = entry;
  const own = (text: unknown): unknown => (typeof text === "string" ? text.split(memberName).join("{name}") : text);
  const domains = rest.domains as Plain[] | undefined;
  const ports = rest.ports as Plain[] | undefined;
  return {
    ...rest,
    ...(domains ? { domains: domains.map((d) => ({ ...d, hostname: own(d.hostname) })) } : {}),
    ...(ports ? { ports: ports.map((p) => (p.label === undefined ? p : { ...p, label: own(p.label) })) } : {}),
  };
}
