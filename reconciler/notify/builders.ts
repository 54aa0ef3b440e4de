/** Each event type's summary and details, from what a round or a command saw. */
import { policyBlocks, type Plan, type PolicyOverride, type StepOutcome } from "../../engine/index.js";
import { newEvent, type EventOrigin, type NotifyEvent } from "./event.js";
import { setFingerprint, type DriftEntry, type DriftNews } from "./drift.js";

const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function driftDetected(origin: EventOrigin, entries: readonly DriftEntry[], applying: boolean): NotifyEvent {
  const what = applying ? "repairing" : "run with --apply to repair";
  return newEvent(
    "drift.detected",
    origin,
    `${count(entries.length, "resource")} ${entries.length === 1 ? "differs" : "differ"} from the desired state (${what})`,
    {
      fingerprint: setFingerprint(entries),
      resources: entries,
      applying,
    },
  );
}

export function driftRepaired(origin: EventOrigin, entries: DriftNews["repaired"], mutations: number): NotifyEvent {
  const outside = entries.filter((e) => e.by === "outside").length;
  const note = outside === entries.length ? " (no longer differ)" : outside > 0 ? ` (${outside} no longer differ without a repair)` : "";
  return newEvent("drift.repaired", origin, `${count(entries.length, "drifted resource")} repaired${note}`, {
    fingerprint: setFingerprint(entries),
    resources: entries,
    mutations,
  });
}

export function driftFlapping(origin: EventOrigin, flapping: DriftNews["flapping"]): NotifyEvent {
  const window = Math.round((flapping[0]?.windowSeconds ?? 0) / 60);
  return newEvent(
    "drift.flapping",
    origin,
    `${count(flapping.length, "resource")} keep drifting after repair: no more drift notifications for ${flapping.length === 1 ? "it" : "them"} until quiet for ${window} min`,
    {
      resources: flapping,
      lines: flapping.map((f) => `${f.address}: detected ${f.detections} times within ${Math.round(f.windowSeconds / 60)} min`),
    },
  );
}

export function applyFailed(
  origin: EventOrigin,
  error: { code: string | undefined; message: string },
  outcomes: readonly StepOutcome[] = [],
): NotifyEvent {
  const failed = outcomes
    .filter((o) => o.status === "failed")
    .map((o) => ({ op: o.step.op, address: o.step.address, code: o.error?.code ?? null, message: o.error?.message ?? "" }));
  return newEvent("apply.failed", origin, `apply failed: ${error.message}`, {
    error: { code: error.code ?? null, message: error.message },
    failedSteps: failed,
    lines: failed.length > 0 ? failed.map((f) => `${f.op} ${f.address}: ${f.message}`) : [error.message],
  });
}

/** One per rollout batch whose failure autoRevert answered by putting members back. */
export function rolloutsReverted(origin: EventOrigin, outcomes: readonly StepOutcome[]): NotifyEvent[] {
  const events: NotifyEvent[] = [];
  for (const o of outcomes) {
    if (o.status !== "failed" || o.step.op !== "rollout-batch" || o.reverted === undefined || o.reverted.length === 0) continue;
    const { group, address, batch, batches } = o.step;
    const message = o.error?.message ?? "";
    const summary = `rollout of group ${group} failed at batch ${batch} of ${batches} and was reverted: ${count(o.reverted.length, "member")} back on the last healthy spec`;
    events.push(
      newEvent("rollout.reverted", origin, summary, { group, address, batch, batches, reverted: o.reverted, message, lines: [message] }),
    );
  }
  return events;
}

export function sourceBroken(origin: EventOrigin, brokenRevision: string | null, error: string, enforcing: string | null): NotifyEvent {
  const what = brokenRevision !== null ? `commit ${brokenRevision.slice(0, 12)} does not load` : "the source does not load";
  const kept = enforcing !== null ? `; the last good commit ${enforcing.slice(0, 12)} stays enforced` : "";
  return newEvent("source.broken", origin, `${what}${kept}`, { brokenRevision, enforcing, error, lines: [error] });
}

export function budgetBlocked(origin: EventOrigin, plan: Plan): NotifyEvent {
  const cost = plan.cost;
  const known = cost !== undefined && "before" in cost ? cost : undefined;
  const summary = known?.budget
    ? `changes held: they bring the fleet to ${known.after.toFixed(2)} ${known.currency}/month, over the budget of ${known.budget.monthly.toFixed(2)}`
    : "changes held: their cost cannot be known and a budget is set";
  return newEvent("budget.blocked", origin, summary, {
    ...(known
      ? {
          currency: known.currency,
          before: known.before,
          after: known.after,
          delta: known.delta,
          budget: known.budget?.monthly ?? null,
          top: known.budget?.top ?? [],
        }
      : { unknown: cost !== undefined && "unknown" in cost ? cost.unknown : null, budget: cost?.budget?.monthly ?? null }),
    lines: (known?.budget?.top ?? []).map((name) => `${name} +${(known?.cubes.find((c) => c.name === name)?.delta ?? 0).toFixed(2)}`),
  });
}

export function policyBlocked(origin: EventOrigin, plan: Plan): NotifyEvent {
  const violations = policyBlocks(plan).map((v) => ({ rule: v.rule, address: v.address, check: v.check, saw: v.saw, fix: v.fix }));
  return newEvent("policy.blocked", origin, `changes held: ${count(violations.length, "mandatory policy violation")}`, {
    violations,
    lines: violations.map((v) => `${v.rule} on ${v.address}: ${v.saw}`),
  });
}

export function policyOverridden(origin: EventOrigin, overrides: readonly PolicyOverride[], outcome: "applied" | "failed"): NotifyEvent {
  return newEvent(
    "policy.overridden",
    origin,
    `${count(overrides.length, "mandatory policy rule")} overridden for this apply (${outcome})`,
    {
      overrides,
      outcome,
      lines: overrides.map((o) => `${o.rule}: ${o.reason}`),
    },
  );
}
