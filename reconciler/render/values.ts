/** Small pure helpers shared by the renderers. */
import type { Action, KnownCost, Plan, PlanGroup, ResourceChange } from "../../engine/types.js";
import { escapeText } from "./escape.js";

export const SYMBOLS: Record<Action, string> = {
  noop: " ",
  create: "+",
  update: "~",
  delete: "-",
  "delete-then-create": "-/+",
  "create-then-delete": "+/-",
};

export const ACTION_WORDS: Record<Action, string> = {
  noop: "no change",
  create: "create",
  update: "update in place",
  delete: "destroy",
  "delete-then-create": "replace (destroy, then create)",
  "create-then-delete": "replace (create, then destroy)",
};

export function symbolOf(change: ResourceChange): string {
  return change.blocked ? "!" : SYMBOLS[change.action];
}

const MAX_VALUE = 60;

/** One short line for any value: long strings (keys, cloud-init) are cut. */
export function formatValue(value: unknown): string {
  if (value === undefined) return "(unset)";
  const text = escapeText(JSON.stringify(value) ?? String(value));
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/** What a plan shows: every change but the noops; a blocked noop (an ambiguous name) is shown too. */
export const visibleChanges = (plan: Plan): ResourceChange[] => plan.changes.filter((c) => c.action !== "noop" || c.blocked !== undefined);

/** Existing, declared resources whose live state differs from the file. */
export const driftedChanges = (plan: Plan): ResourceChange[] =>
  visibleChanges(plan).filter((c) => c.id !== null && !c.unmanaged && c.action !== "delete");

export const unmanagedCubes = (plan: Plan): ResourceChange[] => plan.changes.filter((c) => c.unmanaged === true && c.kind === "cube");

export const blockedChanges = (plan: Plan): ResourceChange[] => plan.changes.filter((c) => c.blocked !== undefined);

export function summaryLine(plan: Plan): string {
  const { add, change, destroy } = plan.summary;
  return `Plan: ${add} to add, ${change} to change, ${destroy} to destroy.`;
}

export function pacingLine(plan: Plan): string {
  const { limit, windowMs } = plan.options.rateLimit;
  const { mutations, estimatedSeconds } = plan.summary;
  const noun = mutations === 1 ? "mutation" : "mutations";
  const rate = `${limit}/${formatSeconds(windowMs / 1000)}s`;
  if (estimatedSeconds < 0.05) return `${mutations} API ${noun}; within the rate limit (${rate}), no wait.`;
  const waits = plan.summary.rolloutWaitSeconds;
  if (waits !== undefined) {
    const paced = Math.max(0, estimatedSeconds - waits);
    const batches = plan.steps.filter((step) => step.op === "rollout-batch").length;
    return `${mutations} API ${noun}; this takes about ${formatSeconds(estimatedSeconds)} s: ${formatSeconds(waits)} s of rollout waits (${batches} ${batches === 1 ? "batch" : "batches"} one after another, each waiting for its members' deletion, boot and healthyFor)${paced < 0.05 ? `; the rate limit (${rate}) adds no wait` : ` and ${formatSeconds(paced)} s more for the rate limit (${rate})`}.`;
  }
  return `${mutations} API ${noun}; the rate limit (${rate}) makes this take at least ${formatSeconds(estimatedSeconds)} s.`;
}

/** What closes a plan's output, not yet escaped: the summary and pacing, and the cost, blocked and over-budget lines a plan may have. */
export function planFooter(plan: Plan) {
  return {
    summary: summaryLine(plan),
    pacing: pacingLine(plan),
    cost: costLine(plan),
    blocked: blockedLine(plan),
    overBudget: overBudgetMessage(plan),
  };
}

export function blockedLine(plan: Plan): string | undefined {
  const n = plan.summary.blocked;
  if (n === 0) return undefined;
  return `${n} ${n === 1 ? "change is" : "changes are"} blocked and will not be applied.`;
}

/**
 * "Cost: +12.41 EUR/month (fleet 180.30 → 192.71 EUR/month; 730 h/month, …)": what the change
 * does to the fleet's monthly cost and the assumptions. API values as they came: each format escapes.
 */
export function costLine(plan: Plan): string | undefined {
  const cost = plan.cost;
  if (cost === undefined) return undefined;
  if ("unknown" in cost)
    return `Cost: unknown (${cost.unknown})${cost.budget && cost.blocked !== true ? `; the budget of ${money(cost.budget.monthly)}/month is not checked` : ""}.`;
  const unit = `${cost.currency}/month`;
  const change = cost.delta === 0 ? "no change" : `${cost.delta > 0 ? "+" : "-"}${money(Math.abs(cost.delta))} ${unit}`;
  const fleet = cost.delta === 0 ? money(cost.after) : `${money(cost.before)} → ${money(cost.after)}`;
  const tiers = cost.tiers.map((t) => `${t.label} ×${t.multiplier} (${t.cubes} ${t.cubes === 1 ? "cube" : "cubes"})`).join(", ");
  const budget = cost.budget
    ? `, ${cost.after <= cost.budget.monthly ? "within" : "over"} the budget of ${money(cost.budget.monthly)}`
    : "";
  const stopped = cost.stoppedBills === "disk" ? "stopped cubes bill disk only" : "stopped cubes counted in full";
  return `Cost: ${change} (fleet ${fleet} ${unit}${budget}; ${cost.hoursPerMonth} h/month, ${tiers ? `tier by cube vCPUs: ${tiers}, ` : ""}${stopped})`;
}

/** The refusal of a change that adds cost above the file's budget, naming the cubes that add the most. */
export function overBudgetMessage(plan: Plan): string | undefined {
  if (plan.cost !== undefined && "unknown" in plan.cost) {
    const { blocked, budget } = plan.cost;
    return blocked === true && budget !== undefined
      ? `the change may add cost and its cost cannot be known, with a budget of ${money(budget.monthly)}/month (budget.monthly) set`
      : undefined;
  }
  const cost = plan.cost as KnownCost | undefined;
  if (cost?.budget?.over !== true) return undefined;
  const top = (cost.budget.top ?? []).map((name) => `${name} +${money(cost.cubes.find((c) => c.name === name)?.delta ?? 0)}`).join(", ");
  const unit = `${cost.currency}/month`;
  return `the change adds ${money(cost.delta)} ${unit} and brings the fleet to ${money(cost.after)} ${unit}, over the budget of ${money(cost.budget.monthly)} ${unit} (budget.monthly); the cubes that add the most: ${top}`;
}

const money = (n: number): string => n.toFixed(2);

export const formatSeconds = (s: number): string => (Number.isInteger(s) ? String(s) : s.toFixed(1));

export const hasChanges = (plan: Plan): boolean => visibleChanges(plan).length > 0;

/** "cube/web[1..4]": how every output names a group. */
export const groupAddress = (group: PlanGroup): string => `cube/${group.name}[1..${group.replicas}]`;

/** "group of 4 replicas, scaling 10 → 4; 2 to replace". */
export function groupDescription(group: PlanGroup): string {
  const scaled = group.live !== group.replicas && group.live > 0 ? `, scaling ${group.live} → ${group.replicas}` : "";
  return `group of ${group.replicas} replicas${scaled}; ${group.replacing} to replace`;
}

/** The plan's groups that have a change to show, in the plan's order. */
export function changedGroups(plan: Plan): PlanGroup[] {
  const changed = new Set(visibleChanges(plan).flatMap((change) => (change.group === undefined ? [] : [change.group])));
  return (plan.groups ?? []).filter((group) => changed.has(group.name));
}

/** "rollout: 3 batches of at most 2 (canary 1), each healthy (http) for 30s within 10m; auto-revert". */
export function rolloutLine(rollout: NonNullable<PlanGroup["rollout"]>): string {
  const canary = rollout.canary > 0 ? ` (canary ${rollout.canary})` : "";
  const check = `${rollout.healthCheck.kind} check`;
  const revert = rollout.autoRevert ? "; a failed check reverts the failed members" : "; a failed check stops the rollout";
  return `rollout: ${rollout.batches} ${rollout.batches === 1 ? "batch" : "batches"} of at most ${rollout.maxUnavailable}${canary}, each passing its ${check} for ${formatSeconds(rollout.healthyForMs / 1000)} s within ${formatSeconds(rollout.deadlineMs / 1000)} s${revert}`;
}
