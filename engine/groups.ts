/** Groups of replicas in a plan: the members a smaller count leaves over (removed, highest index first), each change's group, and the plan's view of each group. */
import { deleteCubeSteps, liveCubeView } from "./cube-rules.js";
import { viewFields } from "./change.js";
import { memberIndex } from "./replicas.js";
import type { DesiredGroupSpec, DesiredState, ObservedCube, Plan, PlanGroup, ResourceChange, Step } from "./types.js";
import { isReplace } from "./types.js";

/** A live cube named as a member of a group beyond its count (web-7 of a group of 4). */
export interface Leftover {
  live: ObservedCube;
  group: string;
  index: number;
}

/** Splits undeclared live cubes into those a group leaves over (highest index first) and the truly unmanaged. */
export function splitLeftovers(
  groups: readonly DesiredGroupSpec[] | undefined,
  unmanaged: ObservedCube[],
): { leftovers: Leftover[]; others: ObservedCube[] } {
  if (groups === undefined || groups.length === 0) return { leftovers: [], others: unmanaged };
  const leftovers: Leftover[] = [];
  const others: ObservedCube[] = [];
  for (const live of unmanaged) {
    const match = groups
      .map((group) => ({ group, index: memberIndex(group.name, live.cube.name) }))
      .find(({ group, index }) => index !== undefined && index > group.replicas);
    if (match?.index === undefined) others.push(live);
    else leftovers.push({ live, group: match.group.name, index: match.index });
  }
  leftovers.sort((a, b) => a.group.localeCompare(b.group) || b.index - a.index);
  return { leftovers, others };
}

/** A member scaled away: deleted (its domains and ports go with it), never when protected. */
export function planLeftover(leftover: Leftover, address: string, replicas: number): { change: ResourceChange; steps: Step[] } {
  const { live } = leftover;
  const before = liveCubeView(live);
  const change: ResourceChange = {
    address,
    kind: "cube",
    cubeName: live.cube.name,
    id: live.cube.id,
    action: "delete",
    before,
    after: null,
    changes: viewFields(before, "destroyed"),
    group: leftover.group,
  };
  if (live.cube.terminationProtection) {
    const reason = `cube "${live.cube.name}" is a member of group ${leftover.group} beyond replicas: ${replicas} and has terminationProtection on; turn it off first (cubeform cube unprotect ${live.cube.name}), then apply removes it`;
    return { change: { ...change, blocked: { code: "termination_protected", reason } }, steps: [] };
  }
  return { change, steps: deleteCubeSteps(address, { cubeName: live.cube.name, cubeId: live.cube.id }) };
}

/** Marks the changes of the groups' members with their group, and says what the plan does to each group. */
export function describeGroups(plan: Plan, desired: DesiredState): PlanGroup[] | undefined {
  const groups = desired.groups;
  if (groups === undefined || groups.length === 0) return undefined;
  const groupOf = new Map<string, string>();
  for (const spec of desired.cubes) if (spec.group) groupOf.set(spec.name, spec.group.group);
  const views = new Map<string, PlanGroup>(
    groups.map((group) => [group.name, { name: group.name, replicas: group.replicas, live: 0, replacing: 0 }]),
  );
  for (const change of plan.changes) {
    const name = change.group ?? (change.unmanaged ? undefined : groupOf.get(change.cubeName));
    if (name === undefined) continue;
    change.group = name;
    const view = views.get(name);
    if (view === undefined || change.kind !== "cube") continue;
    if (change.id !== null) view.live += 1;
    if (isReplace(change.action) && change.blocked === undefined) view.replacing += 1;
  }
  for (const group of groups) {
    const view = views.get(group.name) as PlanGroup;
    if (group.rollout !== undefined)
      view.rollout = {
        ...group.rollout,
        batches: plan.steps.filter((step) => step.op === "rollout-batch" && step.group === group.name).length,
      };
    if (group.rollout === undefined && view.live > 0 && view.replacing * 2 > view.live) {
      view.warning = `this change replaces ${view.replacing} of the ${view.live} members of group ${group.name} at once: they are all down at the same time; add rollout: to the entry (or defaults) to replace them in batches`;
    }
  }
  return [...views.values()];
}
