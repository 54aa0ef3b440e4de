/**
 * diff: desired + observed state → a complete, ordered Plan; pure (no I/O, no clock), from the per-resource rules the provider uses too.
 * diffAsRead: the same plan, each declared cube planned once its reads are in, while the API answers the others, so a
 * large plan's diff costs little after the last read; finish() keeps an early result only when the cube matches the same live cube at
 * the same address.
 */
import { cubeAddress } from "./address.js";
import { viewFields, withoutNoopBodies } from "./change.js";
import { deleteCubeSteps, liveCubeView, managed, planCube } from "./cube-rules.js";
import { planDomain } from "./domain-rules.js";
import { matchCubes, type CubeMatch, type CubeMatching } from "./identity.js";
import { orderSteps, type GroupedStep } from "./phases.js";
import { buildPlan, resolvePlanOptions } from "./plan.js";
import { planPort } from "./port-rules.js";
import { planWebhooks } from "./webhook-rules.js";
import { describeGroups, planLeftover, splitLeftovers } from "./groups.js";
import { planRollouts, type MemberMatch, type RolloutTiming } from "./rollout-plan.js";
import type { Cube } from "../schema/api.js";
import type {
  CubeRef,
  DeclaredCube,
  DesiredCubeSpec,
  ObservedCube,
  ObservedState,
  Plan,
  PlanOptions,
  ResourceChange,
  DesiredState,
  RolloutRecord,
} from "./types.js";

interface Collector {
  changes: ResourceChange[];
  steps: GroupedStep[];
}

/** Beyond the options: what a plan cannot read from the API, learnt elsewhere. */
export interface DiffContext {
  /** The basic-auth password of this domain differs from the one last applied (the API never shows it). */
  passwordChanged?: (cubeName: string, hostname: string) => boolean;
  /** How long a rollout batch's waits take (boot, deletion, poll interval), for the plan's estimate. */
  rolloutTiming?: RolloutTiming;
  /** Rollouts a stopped run left in flight (the journal): their members are checked first, and can be put back. */
  rollouts?: readonly RolloutRecord[];
}

export function diff(desired: DesiredState, observed: ObservedState, options?: Partial<PlanOptions>, context: DiffContext = {}): Plan {
  return diffAsRead(desired, options, context).finish(observed);
}

/** Fed by observe (onListed, onRead); finish() answers what diff() answers for the same observed state. */
export interface DiffAsRead {
  /** Every cube of the list but the deleted ones (as observe's onListed has them), before their domains and mappings are read. */
  listed(cubes: readonly Cube[]): void;
  /** One cube with its domains and mappings. */
  read(cube: ObservedCube): void;
  finish(observed: ObservedState): Plan;
}

/** A listed cube before its reads: `at` is its place in the list. */
type ListedCube = ObservedCube & { at: number };

/** The matching of the listed cubes (stubs), kept for finish() when the observed state has the same cubes. */
interface ListedMatching {
  cubes: readonly Cube[];
  matches: CubeMatch[];
  unmanaged: ObservedCube[];
  /** The addressing of these cubes (the same names, so the same for the observed ones). */
  addressOf: Addressing;
}

type Addressing = (name: string, id: string | undefined) => string;

/** A listed cube's domains and mappings before they are read (never added to). */
const NONE: never[] = [];

/** A cube planned as soon as its reads were in. */
type EarlyCube = Pick<Collector, "changes" | "steps"> & { live: ObservedCube; address: string };

export function diffAsRead(desired: DesiredState, options?: Partial<PlanOptions>, context: DiffContext = {}): DiffAsRead {
  const resolved = resolvePlanOptions(options, desired);
  // The declared cubes first, in their order: matches[i] is desired.cubes[i].
  const declared = [...desired.cubes, ...(desired.untargeted ?? [])];
  const targets = new Set(resolved.targets);
  // A group's name targets all its members.
  const planned = (spec: DesiredCubeSpec): boolean =>
    targets.size === 0 || targets.has(spec.name) || (spec.group !== undefined && targets.has(spec.group.group));
  const early: (EarlyCube | undefined)[] = [];
  let waiting: ObservedCube[] | undefined = [];
  let indexById = new Map<string, number>();
  let addressOf: Addressing = () => "";
  let listing: ListedMatching | undefined;

  const planEarly = (live: ObservedCube): void => {
    const index = indexById.get(live.cube.id);
    const spec = index === undefined ? undefined : desired.cubes[index];
    if (index === undefined || spec === undefined) return;
    const address = addressOf(spec.name, spec.id ?? live.cube.id);
    const out: Collector = { changes: [], steps: [] };
    try {
      planDeclaredCube(spec, { kind: "matched", live }, address, resolved, index, out, context);
    } catch {
      return; // finish() plans it again and reports what is wrong
    }
    early[index] = { live, address, changes: out.changes, steps: out.steps };
  };

  return {
    listed(present) {
      const stubs = present.map((cube, at): ListedCube => ({ cube, domains: NONE, tcpMappings: NONE, at }));
      const { matches, unmanaged } = matchCubes(declared, stubs, desired.cubes.length);
      addressOf = addressing(declared, unmanaged);
      listing = { cubes: present, matches, unmanaged, addressOf };
      indexById = new Map();
      desired.cubes.forEach((spec, index) => {
        const match = matches[index];
        if (match?.kind === "matched" && planned(spec)) indexById.set(match.live.cube.id, index);
      });
      const reads = waiting ?? [];
      waiting = undefined;
      reads.forEach(planEarly);
    },
    read(cube) {
      if (waiting !== undefined) waiting.push(cube);
      else planEarly(cube);
    },
    finish(observed) {
      const live = observed.cubes.filter((cube) => cube.cube.state !== "deleted");
      const same = sameMatching(listing, live);
      const { matches, unmanaged } = same ?? matchCubes(declared, live, desired.cubes.length);
      const addressAt = same?.addressOf ?? addressing(declared, unmanaged);
      const out: Collector = { changes: [], steps: [] };
      desired.cubes.forEach((spec, index) => {
        const match = matches[index];
        if (match === undefined || !planned(spec)) return;
        const address = addressAt(spec.name, spec.id ?? (match.kind === "matched" ? match.live.cube.id : undefined));
        const ready = early[index];
        if (ready !== undefined && match.kind === "matched" && ready.live === match.live && ready.address === address) {
          out.changes.push(...ready.changes);
          out.steps.push(...ready.steps);
        } else planDeclaredCube(spec, match, address, resolved, index, out, context);
      });
      const prune = resolved.prune && targets.size === 0 ? pruneMode(desired, declared.length) : "off";
      // Members a smaller replica count leaves over are the group's to remove (highest index first), not unmanaged cubes.
      const { leftovers, others } = splitLeftovers(desired.groups, unmanaged);
      others.forEach((cube, index) =>
        planUnmanagedCube(cube, addressAt(cube.cube.name, cube.cube.id), prune, declared.length + index, out),
      );
      leftovers.forEach((leftover, index) => {
        if (targets.size > 0 && !targets.has(leftover.live.cube.name) && !targets.has(leftover.group)) return;
        const replicas = desired.groups?.find((group) => group.name === leftover.group)?.replicas ?? 0;
        const { change, steps } = planLeftover(leftover, addressAt(leftover.live.cube.name, leftover.live.cube.id), replicas);
        out.changes.push(change);
        out.steps.push(...steps.map((step) => ({ step, group: declared.length + others.length + index })));
      });
      if (desired.webhooks !== undefined && targets.size === 0) {
        const webhooks = planWebhooks(desired.webhooks, observed.webhooks ?? [], resolved.prune);
        out.changes.push(...webhooks.changes);
        out.steps.push(...webhooks.steps.map((step) => ({ step, group: declared.length + unmanaged.length })));
      }
      const grouped =
        desired.groups === undefined
          ? out.steps
          : planRollouts(desired.groups, memberMatches(desired, matches), out.changes, out.steps, context.rollouts);
      const plan = buildPlan({
        observed,
        options: resolved,
        changes: out.changes,
        steps: orderSteps(grouped),
        ...(context.rolloutTiming ? { timing: context.rolloutTiming } : {}),
      });
      const groups = describeGroups(plan, desired);
      if (groups !== undefined) plan.groups = groups;
      return plan;
    },
  };
}

/** The members of the groups with the live cubes they matched. */
function memberMatches(desired: DesiredState, matches: CubeMatch[]): MemberMatch[] {
  return desired.cubes.flatMap((spec, index) => {
    const match = matches[index];
    return spec.group === undefined ? [] : [{ spec, live: match?.kind === "matched" ? match.live : undefined }];
  });
}

/** The listing's matching with the observed cubes for the stubs, when those are the listed cubes in order (same ids and names). */
function sameMatching(listing: ListedMatching | undefined, live: ObservedCube[]): (CubeMatching & { addressOf: Addressing }) | undefined {
  if (listing === undefined || listing.cubes.length !== live.length || live.some((cube, i) => cube.cube !== listing.cubes[i]))
    return undefined;
  const observedOf = (stub: ObservedCube): ObservedCube => live[(stub as ListedCube).at] as ObservedCube;
  const matches = listing.matches.map((match): CubeMatch => {
    if (match.kind === "matched") return { kind: "matched", live: observedOf(match.live) };
    if (match.kind === "ambiguous") return { ...match, candidates: match.candidates.map(observedOf) };
    return match;
  });
  return { matches, unmanaged: listing.unmanaged.map(observedOf), addressOf: listing.addressOf };
}

/** Addresses asked for before every name is counted at once (a --target plan asks for a few). */
const COUNTED_ONE_BY_ONE = 16;

/** Addresses carry the id only when one name stands for several cubes of the plan. */
function addressing(specs: readonly DeclaredCube[], unmanaged: ObservedCube[]): Addressing {
  let asked = 0;
  let counts: Map<string, number> | undefined;
  const countOf = (name: string): number => {
    if (counts === undefined && ++asked > COUNTED_ONE_BY_ONE) counts = countNames(specs, unmanaged);
    return (counts ?? countNames(specs, unmanaged, name)).get(name) ?? 0;
  };
  return (name, id) => cubeAddress(name, id, countOf(name) > 1);
}

/** How many declared and unmanaged cubes bear each name (`only`: that name alone). */
function countNames(specs: readonly DeclaredCube[], unmanaged: ObservedCube[], only?: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (name: string): void => {
    if (only === undefined || name === only) counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  for (const spec of specs) add(spec.name);
  for (const cube of unmanaged) add(cube.cube.name);
  return counts;
}

function planDeclaredCube(
  spec: DesiredCubeSpec,
  match: CubeMatch,
  address: string,
  options: PlanOptions,
  group: number,
  out: Collector,
  context: DiffContext,
): void {
  if (match.kind === "ambiguous") {
    const view = { name: spec.name, ids: match.candidates.map((cube) => cube.cube.id) };
    out.changes.push({
      address,
      kind: "cube",
      cubeName: spec.name,
      id: null,
      action: "noop",
      before: view,
      after: view,
      changes: [],
      blocked: { code: "ambiguous_name", reason: match.reason },
    });
    return;
  }
  const live = match.kind === "matched" ? match.live : undefined;
  const cubePlan = planCube({ address, spec, live, allowReplace: options.allowReplace });
  out.changes.push(withoutNoopBodies(cubePlan.change));
  out.steps.push(...cubePlan.steps.map((step) => ({ step, group })));
  planSubResources(spec, live, cubePlan.target, cubePlan.deletesLive, address, group, out, context);
}

function planSubResources(
  spec: DesiredCubeSpec,
  live: ObservedCube | undefined,
  target: CubeRef,
  cubeDeleted: boolean,
  address: string,
  group: number,
  out: Collector,
  context: DiffContext,
): void {
  const add = ({ change, steps }: { change: ResourceChange; steps: GroupedStep["step"][] }): void => {
    out.changes.push(withoutNoopBodies(change));
    out.steps.push(...steps.map((step) => ({ step, group })));
  };
  const domains = managed(spec, "domains");
  if (domains !== undefined) {
    const liveDomains = live?.domains ?? [];
    for (const domain of domains) {
      const passwordChanged = domain.basicAuthPassword !== undefined && context.passwordChanged?.(spec.name, domain.hostname) === true;
      add(
        planDomain({
          cubeAddress: address,
          cube: target,
          spec: domain,
          live: liveDomains.find((d) => d.hostname === domain.hostname),
          cubeDeleted,
          passwordChanged,
        }),
      );
    }
    for (const extra of liveDomains.filter((d) => !domains.some((domain) => domain.hostname === d.hostname)))
      add(planDomain({ cubeAddress: address, cube: target, live: extra, cubeDeleted }));
  }
  const ports = managed(spec, "ports");
  if (ports !== undefined) {
    const livePorts = (live?.tcpMappings ?? []).filter((mapping) => !mapping.isSsh);
    for (const port of ports)
      add(
        planPort({
          cubeAddress: address,
          cube: target,
          spec: port,
          live: livePorts.find((m) => m.cubePort === port.cubePort),
          cubeDeleted,
        }),
      );
    for (const extra of livePorts.filter((m) => !ports.some((port) => port.cubePort === m.cubePort)))
      add(planPort({ cubeAddress: address, cube: target, live: extra, cubeDeleted }));
  }
}

type PruneMode = "off" | "on" | "empty_source";

/** A desired state that declares no cube prunes only when it says allowEmpty: a wrong path or an empty checkout must not empty the space. */
function pruneMode(desired: DesiredState, declared: number): PruneMode {
  return declared === 0 && desired.allowEmpty !== true ? "empty_source" : "on";
}

const EMPTY_SOURCE_REASON =
  "the desired state declares no cubes, and an empty source never prunes (a wrong path or an empty checkout looks the same); to delete every cube of the space, set allowEmpty: true beside prune: true";

/** A cube the file does not declare: reported; deleted only when pruning, never when protected. Its domains and ports go with it. */
function planUnmanagedCube(live: ObservedCube, address: string, prune: PruneMode, group: number, out: Collector): void {
  const before = liveCubeView(live);
  const base = { address, kind: "cube" as const, cubeName: live.cube.name, id: live.cube.id, before, unmanaged: true };
  if (prune === "off") {
    out.changes.push({ ...base, action: "noop", after: before, changes: [] });
    return;
  }
  const change: ResourceChange = { ...base, action: "delete", after: null, changes: viewFields(before, "destroyed") };
  if (prune === "empty_source") {
    out.changes.push({ ...change, blocked: { code: "empty_source", reason: EMPTY_SOURCE_REASON } });
    return;
  }
  if (live.cube.terminationProtection) {
    // Not in the file: no terminationProtection line to turn off, only the live flag.
    const ref = /^[\w.-]+$/.test(live.cube.name) ? live.cube.name : live.cube.id;
    const reason = `cube "${live.cube.name}" is not in the file and has terminationProtection on; turn it off first (cubeform cube unprotect ${ref}), then prune deletes it`;
    out.changes.push({ ...change, blocked: { code: "termination_protected", reason } });
    return;
  }
  out.changes.push(change);
  out.steps.push(...deleteCubeSteps(address, { cubeName: live.cube.name, cubeId: live.cube.id }).map((step) => ({ step, group })));
}
