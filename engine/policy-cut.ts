/**
 * The plan an apply carries out under its policies (issue 36 item 3): each change a mandatory violation refuses is blocked, with every change
 * that depends on it (a refused cube create or replacement takes its domains and ports along), and their steps are left out; the rest of the
 * plan goes ahead. A violation of the change as a whole (its cost) refuses every change.
 */
import { blocksApply, groupOf } from "./policy.js";
import { summarize } from "./plan.js";
import { isReplace, type Blocked, type Plan, type PolicyViolation, type ResourceChange, type Step } from "./types.js";

export interface PolicyCut {
  /** The plan without the refused changes' steps; those changes carry `blocked` (code policy_violation). */
  plan: Plan;
  /** Addresses refused, by the rule's violation or by depending on a refused change. */
  refused: Map<string, Blocked>;
}

export function cutRefusedChanges(plan: Plan): PolicyCut {
  const blocking = plan.policy?.violations.filter(blocksApply) ?? [];
  const refused = new Map<string, Blocked>();
  if (blocking.length === 0) return { plan, refused };
  const open = plan.changes.filter((c) => c.action !== "noop" && c.blocked === undefined);
  for (const v of blocking)
    for (const change of open) if (judged(v, change)) refused.set(change.address, { code: "policy_violation", reason: reasonOf(v) });
  // What is made anew (a create, a replacement) takes along what lives on it.
  for (const change of open) {
    if (!refused.has(change.address) || change.kind !== "cube" || !(change.action === "create" || isReplace(change.action))) continue;
    const prefix = `${change.address}/`;
    for (const part of open) {
      if (part.address.startsWith(prefix) && !refused.has(part.address))
        refused.set(part.address, {
          code: "policy_violation",
          reason: `depends on ${change.address}, refused by policy (${refused.get(change.address)?.reason})`,
        });
    }
  }
  if (refused.size === 0) return { plan, refused };
  const changes = plan.changes.map((c) => (refused.has(c.address) ? { ...c, blocked: refused.get(c.address) as Blocked } : c));
  const made = new Set(
    open.filter((c) => refused.has(c.address) && c.kind === "cube" && (c.action === "create" || isReplace(c.action))).map((c) => c.address),
  );
  const steps = withoutSteps(plan.steps, (address) => refused.has(address) || made.has(cubeOf(address)));
  return {
    plan: {
      ...plan,
      changes,
      steps,
      summary: { ...summarize(changes, steps, plan.options.rateLimit), estimatedSeconds: plan.summary.estimatedSeconds },
    },
    refused,
  };
}

/** The changes of a plan made after an apply marked as the apply's plan had them: a refused change left undone stays refused, not open. */
export function markRefused(plan: Plan, refused: ReadonlyMap<string, Blocked>): Plan {
  if (refused.size === 0) return plan;
  const changes = plan.changes.map((c) =>
    c.action !== "noop" && c.blocked === undefined && refused.has(c.address) ? { ...c, blocked: refused.get(c.address) as Blocked } : c,
  );
  return { ...plan, changes, summary: summarize(changes, plan.steps, plan.options.rateLimit) };
}

/** The changes of a plan that policy refused (cutRefusedChanges), by address. */
export function refusedOf(plan: Plan): Map<string, Blocked> {
  const refused = new Map<string, Blocked>();
  for (const c of plan.changes) if (c.blocked?.code === "policy_violation") refused.set(c.address, c.blocked);
  return refused;
}

/** Whether a violation refuses a change: its own resource, its group, or the plan as a whole. */
function judged(v: PolicyViolation, change: ResourceChange): boolean {
  if (v.address === "plan") return true;
  if (v.address.startsWith("group/")) return (change.group ?? groupOf(change.cubeName)) === v.address.slice("group/".length);
  return v.address === change.address;
}

const reasonOf = (v: PolicyViolation): string => `policy ${v.rule} (mandatory): ${v.saw}; fix: ${v.fix}`;

/** cube/NAME of cube/NAME/…: a cube's name has no slash. */
const cubeOf = (address: string): string => address.split("/", 2).join("/");

function withoutSteps(steps: readonly Step[], cut: (address: string) => boolean): Step[] {
  const kept: Step[] = [];
  for (const step of steps) {
    if (step.op !== "rollout-batch") {
      if (!cut(step.address)) kept.push(step);
      continue;
    }
    const members = step.members.filter((m) => !cut(m.address));
    if (members.length > 0) kept.push(members.length === step.members.length ? step : { ...step, members });
  }
  return kept;
}
