/** The prior-state digest of a plan, and the check that a saved plan still fits the space. */
import { createHash } from "node:crypto";
import { canonical, powerSide, sortedOrNull } from "./compare.js";
import { sshMapping } from "./cube-rules.js";
import { liveDomainView } from "./domain-rules.js";
import { StalePlanError } from "./errors.js";
import type { Cube } from "../schema/api.js";
import type { ObservedCube, ObservedState, Plan, ProjectedCube, ProjectedWebhook, StateProjection } from "./types.js";

const byId = <T extends { id: string }>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function projectCube(observed: ObservedCube): ProjectedCube {
  const { cube } = observed;
  return {
    id: cube.id,
    name: cube.name,
    image: cube.image,
    resources: { vcpu: cube.resources.vcpu, ramGb: cube.resources.ramGb, diskGb: cube.resources.diskGb },
    region: cube.region ?? null,
    terminationProtection: cube.terminationProtection,
    power: powerSide(cube.state),
    sshPort: sshMapping(observed)?.cubePort ?? null,
    domains: observed.domains
      .map((domain) => ({ id: domain.id, hostname: domain.domain, port: domain.port, settings: canonical(liveDomainView(domain).settings) }))
      .sort(byId),
    ports: observed.tcpMappings
      .filter((mapping) => !mapping.isSsh)
      .map((mapping) => ({
        id: mapping.id,
        cubePort: mapping.cubePort,
        label: mapping.label,
        udpEnabled: mapping.udpEnabled,
        whitelistedIps: sortedOrNull(mapping.whitelistedIps.map((entry) => entry.cidr)) ?? [],
      }))
      .sort(byId),
  };
}

/** The cubes a projection holds, sorted by id (deleted cubes left out). */
function liveCubesById(observed: ObservedState): ObservedCube[] {
  return observed.cubes.filter((c) => c.cube.state !== "deleted").sort((a, b) => byId(a.cube, b.cube));
}

function projectWebhooks(webhooks: NonNullable<ObservedState["webhooks"]>): ProjectedWebhook[] {
  return webhooks
    .map((w) => ({ id: w.id, url: w.url, events: sortedOrNull(w.events) ?? [], description: w.description ?? null, enabled: w.enabled }))
    .sort(byId);
}

export function projectState(observed: ObservedState): StateProjection {
  const cubes = liveCubesById(observed).map(projectCube);
  if (observed.webhooks === undefined) return { spaceId: observed.spaceId, cubes };
  return { spaceId: observed.spaceId, cubes, webhooks: projectWebhooks(observed.webhooks) };
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** Projections up to this long are their own part of the digest (hashing each costs more than keeping it). */
const SHORT_PART = 256;

/** A cube's part of the digest: its projection's JSON, or the sha256 of it when it is longer than SHORT_PART. */
function partOf(json: string): string {
  return json.length <= SHORT_PART ? json : sha256(json);
}

/** A cube's entry in the digest: the JSON of [id, part] (see hashEntries). */
export function cubeDigestEntry(observed: ObservedCube): string {
  const listedOnly = observed.domains.length === 0 && observed.tcpMappings.length === 0 ? listedOnlyEntry(observed.cube) : undefined;
  return listedOnly ?? entryOf(observed.cube.id, JSON.stringify(projectCube(observed)));
}

const entryOf = (id: string, projectionJson: string): string => JSON.stringify([id, partOf(projectionJson)]);

/** Nothing in it that JSON.stringify escapes: its JSON is the text in quotes. */
const plain = (text: string): boolean => !/["\\\u0000-\u001f\ud800-\udfff]/.test(text);

/**
 * cubeDigestEntry of a cube without domains or mappings (a cube a --target plan only listed:
 * thousands of them), written out instead of projected and stringified twice; undefined when a
 * text would need escaping (the general way then). Inside the entry the projection is a JSON
 * string, so its quotes are escaped (\\"); plain texts have none to escape. One template literal
 * costs a third of projecting and stringifying twice (escaping with replaceAll, several times
 * as much). test/engine/plan.digest.test.ts compares both ways.
 */
function listedOnlyEntry(cube: Cube): string | undefined {
  const { id, name, image, resources: r, terminationProtection } = cube;
  const region = cube.region ?? null;
  if (!plain(id) || !plain(name) || !plain(image) || (region !== null && !plain(region))) return undefined;
  const regionJson = region === null ? "null" : `\\"${region}\\"`;
  const power = powerSide(cube.state);
  const entry = `["${id}","{\\"id\\":\\"${id}\\",\\"name\\":\\"${name}\\",\\"image\\":\\"${image}\\",\\"resources\\":{\\"vcpu\\":${r.vcpu},\\"ramGb\\":${r.ramGb},\\"diskGb\\":${r.diskGb}},\\"region\\":${regionJson},\\"terminationProtection\\":${terminationProtection},\\"power\\":\\"${power}\\",\\"sshPort\\":null,\\"domains\\":[],\\"ports\\":[]}"]`;
  // The projection is the entry less `["id","` and `"]`, and less one backslash per quote: two
  // for each of its 13 keys and 4 (or 5, with a region) texts.
  const projectionLength = entry.length - id.length - 7 - (region === null ? 34 : 36);
  return projectionLength <= SHORT_PART ? entry : undefined;
}

/**
 * sha256 of JSON.stringify({ spaceId, cubes: [[id, part], …], webhooks }), cubes in id order,
 * a part being the cube's projection JSON when short (a cube a --target plan only listed) and
 * its sha256 otherwise. `entries` are the cubes' [id, part] JSON texts (cubeDigestEntry): a
 * read cube's can be made as soon as it is read (diffAsRead), and little of it kept until the
 * whole is hashed.
 */
function hashEntries(spaceId: string, entries: readonly string[], webhooks: ProjectedWebhook[] | undefined): string {
  const hash = createHash("sha256");
  hash.update(`{"spaceId":${JSON.stringify(spaceId)},"cubes":[${entries.join(",")}]`);
  if (webhooks !== undefined) hash.update(`,"webhooks":${JSON.stringify(webhooks)}`);
  return hash.update("}").digest("hex");
}

export function digestOf(projection: StateProjection): string {
  return hashEntries(
    projection.spaceId,
    projection.cubes.map((cube) => entryOf(cube.id, JSON.stringify(cube))),
    projection.webhooks,
  );
}

/**
 * digestOf(projectState(observed)), projecting cube by cube (a plan that is not saved keeps no
 * projection). `madeEarlier` answers the entries made while the cubes were read (diffAsRead).
 */
export function stateDigest(observed: ObservedState, madeEarlier?: (cube: ObservedCube) => string | undefined): string {
  const sorted = liveCubesById(observed);
  const entries = sorted.map((cube) => madeEarlier?.(cube) ?? cubeDigestEntry(cube));
  return hashEntries(observed.spaceId, entries, observed.webhooks === undefined ? undefined : projectWebhooks(observed.webhooks));
}

/** Throws StalePlanError, naming what changed, when the space no longer matches the plan's prior state. */
export function checkPlanIsCurrent(plan: Plan, observed: ObservedState): void {
  const current = projectState(observed);
  // The prior state itself when the plan has it: a plan saved by a version that digested the
  // state otherwise is compared by what it saw.
  if (digestOf(current) === (plan.priorState === undefined ? plan.priorStateDigest : digestOf(plan.priorState))) return;
  const differences = plan.priorState ? describeDifferences(plan.priorState, current) : [];
  throw new StalePlanError(differences.length > 0 ? differences : ["the observed state differs from the one the plan was computed from"]);
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function describeDifferences(prior: StateProjection, current: StateProjection): string[] {
  const out: string[] = [];
  if (prior.spaceId !== current.spaceId) out.push(`space ${prior.spaceId} is now ${current.spaceId}`);
  const before = new Map(prior.cubes.map((cube) => [cube.id, cube]));
  const after = new Map(current.cubes.map((cube) => [cube.id, cube]));
  for (const [id, cube] of after) if (!before.has(id)) out.push(`cube "${cube.name}" (${id}) appeared`);
  for (const [id, cube] of before) {
    const now = after.get(id);
    if (!now) out.push(`cube "${cube.name}" (${id}) is gone`);
    else out.push(...cubeDifferences(cube, now));
  }
  return out;
}

function cubeDifferences(before: ProjectedCube, after: ProjectedCube): string[] {
  const out: string[] = [];
  const label = `cube "${before.name}"`;
  for (const field of ["image", "resources", "region", "terminationProtection", "power", "sshPort"] as const) {
    if (!same(before[field], after[field])) out.push(`${label}: ${field} changed from ${JSON.stringify(before[field])} to ${JSON.stringify(after[field])}`);
  }
  out.push(...listDifferences(`${label} domain`, before.domains, after.domains, (d) => d.hostname));
  out.push(...listDifferences(`${label} port`, before.ports, after.ports, (p) => String(p.cubePort)));
  return out;
}

function listDifferences<T extends { id: string }>(label: string, before: T[], after: T[], name: (item: T) => string): string[] {
  const out: string[] = [];
  const old = new Map(before.map((item) => [item.id, item]));
  const now = new Map(after.map((item) => [item.id, item]));
  for (const [id, item] of now) if (!old.has(id)) out.push(`${label} ${name(item)} appeared`);
  for (const [id, item] of old) {
    const current = now.get(id);
    if (!current) out.push(`${label} ${name(item)} is gone`);
    else if (!same(item, current)) out.push(`${label} ${name(item)} changed`);
  }
  return out;
}
