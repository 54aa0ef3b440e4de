/** The prior-state digest of a plan, and the check that a saved plan still fits the space. */
import { nodeCrypto } from "../system/builtins.js";
import { canonical, powerSide } from "./compare.js";
import { sshMapping } from "./cube-rules.js";
import { liveDomainView } from "./domain-rules.js";
import { livePortView } from "./port-rules.js";
import { liveWebhookView } from "./webhook-rules.js";
import { StalePlanError } from "./errors.js";
import type { CubeIdentity, ObservedCube, ObservedState, Plan, ProjectedCube, ProjectedWebhook, StateProjection } from "./types.js";

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
      .map((domain) => ({
        id: domain.id,
        hostname: domain.hostname,
        port: domain.port,
        settings: canonical(liveDomainView(domain).settings),
      }))
      .sort(byId),
    ports: observed.tcpMappings
      .filter((mapping) => !mapping.isSsh)
      .map(livePortView)
      .sort(byId),
  };
}

/** The cubes a projection holds, sorted by id (deleted cubes left out). */
function liveCubesById(observed: ObservedState): ObservedCube[] {
  return observed.cubes.filter((c) => c.cube.state !== "deleted").sort((a, b) => byId(a.cube, b.cube));
}

function projectWebhooks(webhooks: NonNullable<ObservedState["webhooks"]>): ProjectedWebhook[] {
  return webhooks.map(liveWebhookView).sort(byId);
}

/** Whether a plan with these targets depends on a cube of this name in full (no targets: every cube). */
function plannedBy(targets: readonly string[] = []): (name: string) => boolean {
  if (targets.length === 0) return () => true;
  const names = new Set(targets);
  return (name) => names.has(name);
}

const identityOf = (cube: CubeIdentity): CubeIdentity => ({ id: cube.id, name: cube.name });

const isProjected = (cube: ProjectedCube | CubeIdentity): cube is ProjectedCube => "image" in cube;

/** With targets, the cubes they do not name are projected as their identity (see StateProjection). */
export function projectState(observed: ObservedState, targets?: readonly string[]): StateProjection {
  const planned = plannedBy(targets);
  const cubes = liveCubesById(observed).map((cube) => (planned(cube.cube.name) ? projectCube(cube) : identityOf(cube.cube)));
  if (observed.webhooks === undefined) return { spaceId: observed.spaceId, cubes };
  return { spaceId: observed.spaceId, cubes, webhooks: projectWebhooks(observed.webhooks) };
}

/**
 * A saved projection as a plan with these targets projects it now: a --target plan saved
 * before its untargeted cubes were projected as identities is compared by what it depends on.
 */
function narrowed(projection: StateProjection, targets: readonly string[] = []): StateProjection {
  const planned = plannedBy(targets);
  return { ...projection, cubes: projection.cubes.map((cube) => (planned(cube.name) ? cube : identityOf(cube))) };
}

/** One-shot (crypto.hash): half the time of createHash for the thousands of cubes a plan digests. */
const sha256 = (text: string): string => nodeCrypto().hash("sha256", text, "hex");

/** Projections up to this long are their own part of the digest (hashing each costs more than keeping it). */
const SHORT_PART = 256;

/** A cube's part of the digest: its projection's JSON, or the sha256 of it when it is longer than SHORT_PART. */
function partOf(json: string): string {
  return json.length <= SHORT_PART ? json : sha256(json);
}

/** A cube's entry in the digest: the JSON of [id, part] (see hashEntries). */
function cubeDigestEntry(observed: ObservedCube): string {
  return entryOf(observed.cube.id, JSON.stringify(projectCube(observed)));
}

const entryOf = (id: string, projectionJson: string): string => JSON.stringify([id, partOf(projectionJson)]);

/** Nothing in it that JSON.stringify escapes: its JSON is the text in quotes. */
const plain = (text: string): boolean => !/["\\\u0000-\u001f\ud800-\udfff]/.test(text);

/**
 * The entry of a cube projected as its identity: thousands of them in a --target plan, so
 * written out (its part, a JSON string, has its quotes escaped) when nothing needs escaping and
 * the part is surely short; else made the general way. test/engine/plan.digest.test.ts compares both.
 */
function identityEntry(cube: CubeIdentity): string {
  const { id, name } = cube;
  if (id.length + name.length > 200 || !plain(id) || !plain(name)) return entryOf(id, JSON.stringify(identityOf(cube)));
  return `["${id}","{\\"id\\":\\"${id}\\",\\"name\\":\\"${name}\\"}"]`;
}

/**
 * sha256 of JSON.stringify({ spaceId, cubes: [[id, part], …], webhooks }), cubes in id order,
 * a part being the cube's projection JSON when short (the identity of a cube a --target plan
 * does not name) and its sha256 otherwise. `entries` are the cubes' [id, part] JSON texts (cubeDigestEntry).
 */
function hashEntries(spaceId: string, entries: readonly string[], webhooks: ProjectedWebhook[] | undefined): string {
  const hash = nodeCrypto().createHash("sha256");
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

/** digestOf(projectState(observed, targets)), projecting cube by cube (a plan that is not saved keeps no projection). */
export function stateDigest(observed: ObservedState, targets?: readonly string[]): string {
  const planned = plannedBy(targets);
  const entries = liveCubesById(observed).map((cube) => (planned(cube.cube.name) ? cubeDigestEntry(cube) : identityEntry(cube.cube)));
  return hashEntries(observed.spaceId, entries, observed.webhooks === undefined ? undefined : projectWebhooks(observed.webhooks));
}

/** Throws StalePlanError, naming what changed, when the space no longer matches the plan's prior state. */
export function checkPlanIsCurrent(plan: Plan, observed: ObservedState): void {
  const targets = plan.options?.targets ?? [];
  const current = projectState(observed, targets);
  // The prior state itself when the plan has it: a plan saved by a version that digested the
  // state otherwise is compared by what it saw.
  const prior = plan.priorState === undefined ? undefined : narrowed(plan.priorState, targets);
  if (digestOf(current) === (prior === undefined ? plan.priorStateDigest : digestOf(prior))) return;
  const differences = prior ? describeDifferences(prior, current) : [];
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
    else if (now.name !== cube.name) out.push(`cube "${cube.name}" (${id}) is now named "${now.name}"`);
    else if (isProjected(cube) && isProjected(now)) out.push(...cubeDifferences(cube, now));
  }
  return out;
}

function cubeDifferences(before: ProjectedCube, after: ProjectedCube): string[] {
  const out: string[] = [];
  const label = `cube "${before.name}"`;
  for (const field of ["image", "resources", "region", "terminationProtection", "power", "sshPort"] as const) {
    if (!same(before[field], after[field]))
      out.push(`${label}: ${field} changed from ${JSON.stringify(before[field])} to ${JSON.stringify(after[field])}`);
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
