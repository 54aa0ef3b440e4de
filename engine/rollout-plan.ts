/**
 * Planning a rollout: the members of a group with `rollout:` that a change replaces leave the plan's phases and go, with their domains and ports,
 * into batches of at most maxUnavailable (the canaries first, on their own), after every other cube is running. rollout.ts carries a batch out.
 */
import { cubeAddress } from "./address.js";
import { planCube } from "./cube-rules.js";
import { planDomain } from "./domain-rules.js";
import { orderSteps, type GroupedStep } from "./phases.js";
import { planPort } from "./port-rules.js";
import type {
  DesiredCubeSpec,
  DesiredGroupSpec,
  ObservedCube,
  ResourceChange,
  RolloutBatchStep,
  RolloutFrom,
  RolloutMember,
  RolloutRecord,
  RolloutSpec,
  Step,
} from "./types.js";
import { isMutation, isReplace } from "./types.js";

/** A declared member and the live cube it is. */
export interface MemberMatch {
  spec: DesiredCubeSpec;
  live: ObservedCube | undefined;
}

/** Where the batches go among the plan's steps: after the phase-7 waits of every cube (see phases.ts). */
const BATCH_ORDER = Number.MAX_SAFE_INTEGER;

export function planRollouts(
  groups: readonly DesiredGroupSpec[],
  members: readonly MemberMatch[],
  changes: readonly ResourceChange[],
  steps: GroupedStep[],
  records: readonly RolloutRecord[] = [],
): GroupedStep[] {
  const withRollout = groups.filter((group): group is DesiredGroupSpec & { rollout: RolloutSpec } => group.rollout !== undefined);
  if (withRollout.length === 0) return steps;
  const cubeChanges = new Map(
    changes.filter((change) => change.kind === "cube" && !change.unmanaged).map((change) => [change.cubeName, change]),
  );
  let rest = steps;
  const batches: GroupedStep[] = [];
  for (const group of withRollout) {
    const record = records.find(
      (r) => r.group === group.name && (r.phase === "replacing" || r.phase === "checking" || r.phase === "failed"),
    );
    const inFlight = new Map((record?.members ?? []).map((member) => [member.name, member.from]));
    const powered = new Set(rest.flatMap(({ step }) => (isPowerStep(step) ? [step.cube.cubeName] : [])));
    const taken = members
      .filter(
        (m) =>
          m.spec.group?.group === group.name &&
          takesPart(cubeChanges.get(m.spec.name), m.live, inFlight.has(m.spec.name), powered.has(m.spec.name)),
      )
      .sort((a, b) => (a.spec.group?.index ?? 0) - (b.spec.group?.index ?? 0));
    if (taken.length === 0) continue;
    const names = new Set(taken.map((m) => m.spec.name));
    const own = (step: Step): boolean => "cube" in step && names.has(step.cube.cubeName);
    const stepsOf = new Map<string, Step[]>();
    for (const { step } of rest)
      if (own(step) && "cube" in step) stepsOf.set(step.cube.cubeName, [...(stepsOf.get(step.cube.cubeName) ?? []), step]);
    rest = rest.filter(({ step }) => !own(step));
    const toMember = (m: MemberMatch): RolloutMember => rolloutMember(m, stepsOf.get(m.spec.name) ?? [], inFlight.get(m.spec.name));
    // The members a crashed run left in flight come first, as their own batch: checked (and put back) before anything else is touched.
    const resumed = taken.filter((m) => inFlight.has(m.spec.name)).map(toMember);
    const others = taken.filter((m) => !inFlight.has(m.spec.name)).map(toMember);
    batches.push(...batchSteps(group, resumed, others, record !== undefined).map((step) => ({ step, group: BATCH_ORDER })));
  }
  return [...rest, ...batches];
}

/**
 * A member takes part when the change replaces it; one a crashed rollout left in flight also when it is missing (deleted, not made again) or
 * already on the new spec (made, never found healthy): it is checked again and can be put back.
 */
function takesPart(change: ResourceChange | undefined, live: ObservedCube | undefined, inFlight: boolean, powered: boolean): boolean {
  if (change === undefined || change.blocked !== undefined) return false;
  if (isReplace(change.action)) return live !== undefined;
  // An in-place change that stops or wakes (boots) the member is rolled out too.
  if (change.action === "update" && powered) return live !== undefined;
  return inFlight && (change.action === "create" || change.action === "noop" || change.action === "update");
}

const isPowerStep = (step: Step): step is Extract<Step, { op: "power-off" | "wake" }> => step.op === "power-off" || step.op === "wake";

function rolloutMember({ spec, live }: MemberMatch, steps: Step[], recorded: RolloutFrom | undefined): RolloutMember {
  const ordered = orderSteps(steps.map((step) => ({ step, group: 0 })));
  const hostname = spec.domains?.[0]?.hostname;
  const address = cubeAddress(spec.name);
  const from = recorded ?? fromLive(live, spec);
  const power = ordered.some((step) => step.op === "create-cube") ? undefined : ordered.find(isPowerStep)?.op;
  const member = (revert: Step[]): RolloutMember => ({
    cubeName: spec.name,
    index: spec.group?.index ?? 0,
    address,
    ...(hostname === undefined ? {} : { hostname }),
    // The batch's health check waits for the member to run, within the rollout's deadline.
    steps: ordered.filter((step) => step.op !== "wait-running"),
    revert,
    from,
  });
  if (power !== undefined && live !== undefined) {
    const cube = { cubeName: spec.name, cubeId: live.cube.id };
    const revert: Step[] =
      power === "wake"
        ? [{ op: "power-off", address, cube }]
        : [
            { op: "wake", address, cube },
            { op: "wait-running", address, cube },
          ];
    return { ...member(revert), power };
  }
  return member(
    freshSteps(
      { ...spec, image: from.image, resources: { ...from.resources }, ...(from.region === undefined ? {} : { region: from.region }) },
      address,
    ),
  );
}

function fromLive(live: ObservedCube | undefined, spec: DesiredCubeSpec): RolloutFrom {
  const cube = live?.cube;
  if (cube === undefined)
    return { image: spec.image, resources: { ...spec.resources }, ...(spec.region === undefined ? {} : { region: spec.region }) };
  return {
    image: cube.image,
    resources: { vcpu: cube.resources.vcpu, ramGb: cube.resources.ramGb, diskGb: cube.resources.diskGb },
    ...(cube.region === undefined ? {} : { region: cube.region }),
  };
}

/** Everything that makes the member anew from `spec` (the spec it had): the cube, its domains and ports, then the wait for it to run. */
function freshSteps(spec: DesiredCubeSpec, address: string): Step[] {
  const cube = { cubeName: spec.name, cubeId: null };
  const steps = [...planCube({ address, spec, allowReplace: true }).steps];
  for (const domain of spec.domains ?? []) steps.push(...planDomain({ cubeAddress: address, cube, spec: domain }).steps);
  for (const port of spec.ports ?? []) steps.push(...planPort({ cubeAddress: address, cube, spec: port }).steps);
  return orderSteps(steps.map((step) => ({ step, group: 0 })));
}

/** The members a crashed run left in flight, then the canaries on their own, then batches of at most maxUnavailable, in index order. */
function batchSteps(
  group: DesiredGroupSpec & { rollout: RolloutSpec },
  resumed: RolloutMember[],
  members: RolloutMember[],
  resuming: boolean,
): RolloutBatchStep[] {
  const { rollout } = group;
  const chunks: { members: RolloutMember[]; canary: boolean }[] = [];
  for (let at = 0; at < resumed.length; at += rollout.maxUnavailable)
    chunks.push({ members: resumed.slice(at, at + rollout.maxUnavailable), canary: false });
  // A resumed rollout had its canaries (the batch in flight is checked first).
  const canaries = resuming ? 0 : Math.min(rollout.canary, members.length);
  if (canaries > 0) chunks.push({ members: members.slice(0, canaries), canary: true });
  for (let at = canaries; at < members.length; at += rollout.maxUnavailable)
    chunks.push({ members: members.slice(at, at + rollout.maxUnavailable), canary: false });
  return chunks.map((chunk, i) => ({
    op: "rollout-batch",
    address: `cube/${group.name}[1..${group.replicas}]`,
    group: group.name,
    batch: i + 1,
    batches: chunks.length,
    canary: chunk.canary,
    members: chunk.members,
    rollout,
  }));
}

/**
 * How long a batch's waits take, for the plan's estimate. The defaults are the emulator's documented durations at speed 1 (emulator/core/clock.ts:
 * a new cube is pending 2 s then booting 3 s; a deletion takes 2 s) — the API's spec gives none — and the CLI's default poll interval (2 s).
 */
export interface RolloutTiming {
  /** From a member's create until it runs. */
  bootMs: number;
  /** From a member's DELETE until the API no longer lists it. */
  deleteMs: number;
  /** How often the waits and the health checks look. */
  pollMs: number;
}

export const DEFAULT_ROLLOUT_TIMING: RolloutTiming = { bootMs: 5_000, deleteMs: 2_000, pollMs: 2_000 };

/** A wait is seen at the first poll after it ended. */
const polled = (ms: number, pollMs: number): number => (pollMs > 0 ? Math.ceil(ms / pollMs) * pollMs : ms);

/** One batch's waits: its members' deletions (one after the other: each delete waits until its cube is gone), then their boot and healthyFor (side by side), each seen at a poll. */
export function batchWaitMs(step: RolloutBatchStep, timing: RolloutTiming): number {
  return (
    deletingMembers(step) * polled(timing.deleteMs, timing.pollMs) +
    polled(timing.bootMs, timing.pollMs) +
    polled(step.rollout.healthyForMs, timing.pollMs)
  );
}

const deletingMembers = (step: RolloutBatchStep): number =>
  step.members.filter((member) => member.steps.some((s) => s.op === "delete-cube")).length;

/**
 * The plan's estimate when it has rollout batches: its mutations in order through the rate limit's window (each waits until fewer than `limit`
 * went in the window before it), the batches one after the other with their waits between their deletes, creates and the next batch.
 * Returns the whole estimate and the part that is rollout waits, in seconds.
 */
export function rolloutEstimate(
  steps: readonly Step[],
  rateLimit: { limit: number; windowMs: number },
  timing: RolloutTiming,
): { seconds: number; waitSeconds: number } {
  const sent: number[] = [];
  let now = 0;
  let waits = 0;
  const send = (): void => {
    if (rateLimit.limit > 0 && sent.length >= rateLimit.limit)
      now = Math.max(now, (sent[sent.length - rateLimit.limit] as number) + rateLimit.windowMs);
    sent.push(now);
  };
  for (const step of steps) {
    if (step.op !== "rollout-batch") {
      if (isMutation(step)) send();
      continue;
    }
    const memberSteps = step.members.flatMap((member) => member.steps);
    const deleteWait = polled(timing.deleteMs, timing.pollMs);
    for (const s of memberSteps) {
      if (s.op !== "delete-cube") continue;
      send();
      now += deleteWait;
    }
    for (const s of memberSteps) if (s.op !== "delete-cube" && isMutation(s)) send();
    const rest = batchWaitMs(step, timing) - deletingMembers(step) * deleteWait;
    now += rest;
    waits += batchWaitMs(step, timing);
  }
  return { seconds: now / 1000, waitSeconds: waits / 1000 };
}
