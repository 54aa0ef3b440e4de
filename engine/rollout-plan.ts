/**
 * Planning a rollout: the members of a group with `rollout:` that a change replaces leave the plan's phases and go, with their domains and ports,
 * into batches of at most maxUnavailable (the canaries first, on their own), after every other cube is running. rollout.ts carries a batch out.
 */
import { orderSteps, type GroupedStep } from "./phases.js";
import type { DesiredCubeSpec, DesiredGroupSpec, ObservedCube, ResourceChange, RolloutBatchStep, RolloutMember, RolloutSpec, Step } from "./types.js";
import { isReplace } from "./types.js";

/** A declared member and the live cube it is. */
export interface MemberMatch {
  spec: DesiredCubeSpec;
  live: ObservedCube | undefined;
}

/** Where the batches go among the plan's steps: after the phase-7 waits of every cube (see phases.ts). */
const BATCH_ORDER = Number.MAX_SAFE_INTEGER;

export function planRollouts(groups: readonly DesiredGroupSpec[], members: readonly MemberMatch[], changes: readonly ResourceChange[], steps: GroupedStep[]): GroupedStep[] {
  const withRollout = groups.filter((group): group is DesiredGroupSpec & { rollout: RolloutSpec } => group.rollout !== undefined);
  if (withRollout.length === 0) return steps;
  const cubeChanges = new Map(changes.filter((change) => change.kind === "cube" && !change.unmanaged).map((change) => [change.cubeName, change]));
  let rest = steps;
  const batches: GroupedStep[] = [];
  for (const group of withRollout) {
    const replaced = members
      .filter((m) => m.spec.group?.group === group.name && m.live !== undefined && replacedBy(cubeChanges.get(m.spec.name)))
      .sort((a, b) => (a.spec.group?.index ?? 0) - (b.spec.group?.index ?? 0));
    if (replaced.length === 0) continue;
    const names = new Set(replaced.map((m) => m.spec.name));
    const own = (step: Step): boolean => "cube" in step && names.has(step.cube.cubeName);
    const stepsOf = new Map<string, Step[]>();
    for (const { step } of rest) if (own(step) && "cube" in step) stepsOf.set(step.cube.cubeName, [...(stepsOf.get(step.cube.cubeName) ?? []), step]);
    rest = rest.filter(({ step }) => !own(step));
    const rolloutMembers = replaced.map((m) => rolloutMember(m, stepsOf.get(m.spec.name) ?? []));
    batches.push(...batchSteps(group, rolloutMembers).map((step) => ({ step, group: BATCH_ORDER })));
  }
  return [...rest, ...batches];
}

/** An unblocked replacement. */
const replacedBy = (change: ResourceChange | undefined): boolean => change !== undefined && isReplace(change.action) && change.blocked === undefined;

function rolloutMember({ spec, live }: MemberMatch, steps: Step[]): RolloutMember {
  const ordered = orderSteps(steps.map((step) => ({ step, group: 0 })));
  const hostname = spec.domains?.[0]?.hostname;
  return {
    cubeName: spec.name,
    index: spec.group?.index ?? 0,
    address: ordered[0]?.address ?? `cube/${spec.name}`,
    ...(hostname === undefined ? {} : { hostname }),
    // The batch's health check waits for the member to run, within the rollout's deadline.
    steps: ordered.filter((step) => step.op !== "wait-running"),
    revert: revertSteps(ordered, live),
    from: { image: live?.cube.image ?? spec.image },
  };
}

/** The member's steps from its create on, creating what the live cube was (image, resources, region). */
function revertSteps(ordered: Step[], live: ObservedCube | undefined): Step[] {
  const at = ordered.findIndex((step) => step.op === "create-cube");
  if (at < 0 || live === undefined) return [];
  return ordered.slice(at).map((step) => {
    if (step.op !== "create-cube") return step;
    const { cube } = live;
    const body = { ...step.body, image: cube.image, resources: { vcpu: cube.resources.vcpu, ramGb: cube.resources.ramGb, diskGb: cube.resources.diskGb } };
    if (cube.region !== undefined) body.region = cube.region;
    return { ...step, body };
  });
}

/** The canaries on their own, then batches of at most maxUnavailable, in index order. */
function batchSteps(group: DesiredGroupSpec & { rollout: RolloutSpec }, members: RolloutMember[]): RolloutBatchStep[] {
  const { rollout } = group;
  const chunks: { members: RolloutMember[]; canary: boolean }[] = [];
  const canaries = Math.min(rollout.canary, members.length);
  if (canaries > 0) chunks.push({ members: members.slice(0, canaries), canary: true });
  for (let at = canaries; at < members.length; at += rollout.maxUnavailable) chunks.push({ members: members.slice(at, at + rollout.maxUnavailable), canary: false });
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

/** What the plan's time estimate adds for rollouts: each batch passes its check for healthyFor. */
export function rolloutWaitSeconds(steps: readonly Step[]): number {
  let ms = 0;
  for (const step of steps) if (step.op === "rollout-batch") ms += step.rollout.healthyForMs;
  return ms / 1000;
}
