/** Assembling a Plan: resolved options, summary, pacing estimate and the prior-state digest. */
import { projectState, stateDigest } from "./digest.js";
import type { DesiredState, ObservedState, Plan, PlanOptions, PlanSummary, ResourceChange, Step } from "./types.js";
import { isReplace, mutationsOf, PLAN_FORMAT } from "./types.js";
import { DEFAULT_ROLLOUT_TIMING, rolloutEstimate, type RolloutTiming } from "./rollout-plan.js";

export const DEFAULT_RATE_LIMIT: PlanOptions["rateLimit"] = { limit: 10, windowMs: 60_000 };

/** Flag options merged with the file: prune is on when either asks for it. */
export function resolvePlanOptions(options: Partial<PlanOptions> | undefined, desired: DesiredState): PlanOptions {
  return {
    prune: (options?.prune ?? false) || desired.prune,
    allowReplace: options?.allowReplace ?? false,
    targets: [...(options?.targets ?? [])],
    rateLimit: { ...(options?.rateLimit ?? DEFAULT_RATE_LIMIT) },
  };
}

/** Least time the mutation rate limit makes `mutations` requests take, starting with a full burst. */
export function estimatePacedSeconds(mutations: number, rateLimit: PlanOptions["rateLimit"]): number {
  const { limit, windowMs } = rateLimit;
  if (limit <= 0 || mutations <= limit) return 0;
  return (Math.ceil((mutations - limit) / limit) * windowMs) / 1000;
}

export function summarize(
  changes: ResourceChange[],
  steps: Step[],
  rateLimit: PlanOptions["rateLimit"],
  timing: RolloutTiming = DEFAULT_ROLLOUT_TIMING,
): PlanSummary {
  const summary: PlanSummary = { add: 0, change: 0, destroy: 0, replace: 0, blocked: 0, unmanaged: 0, mutations: 0, estimatedSeconds: 0 };
  for (const change of changes) {
    if (change.unmanaged) summary.unmanaged += 1;
    // A blocked change will not happen: it is counted apart, not as an add/change/destroy.
    if (change.blocked) summary.blocked += 1;
    else if (change.action === "create") summary.add += 1;
    else if (change.action === "delete") summary.destroy += 1;
    else if (change.action === "update") summary.change += 1;
    else if (isReplace(change.action)) {
      summary.replace += 1;
      summary.add += 1;
      summary.destroy += 1;
    }
  }
  summary.mutations = steps.reduce((sum, step) => sum + mutationsOf(step), 0);
  summary.estimatedSeconds = estimatePacedSeconds(summary.mutations, rateLimit);
  if (steps.some((step) => step.op === "rollout-batch")) {
    // Batches go one after the other, each waiting for its members' deletion, boot and healthyFor, its mutations paced with the rest.
    const rollout = rolloutEstimate(steps, rateLimit, timing);
    summary.estimatedSeconds = Math.round(rollout.seconds * 10) / 10;
    summary.rolloutWaitSeconds = Math.round(rollout.waitSeconds * 10) / 10;
  }
  return summary;
}

export interface PlanParts {
  observed: ObservedState;
  options: PlanOptions;
  changes: ResourceChange[];
  steps: Step[];
  /** How long a rollout batch's waits take, for the estimate (default: DEFAULT_ROLLOUT_TIMING). */
  timing?: RolloutTiming;
}

/**
 * The whole plan, the same for every output. Its prior state (~8 MB at 10,000 cubes) and digest (~7 % of a large plan's CPU)
 * are made the first time they are read (a saved plan, apply's check), not for a plan printed.
 */
export function buildPlan(input: PlanParts): Plan {
  const { observed, options, changes, steps } = input;
  const plan = {
    formatVersion: PLAN_FORMAT,
    // The plan is as old as the observation it was computed from (diff stays pure).
    createdAt: observed.observedAt,
    spaceId: observed.spaceId,
    changes,
    steps,
    summary: summarize(changes, steps, options.rateLimit, input.timing),
  } as Plan;
  lazily(plan, "priorStateDigest", () => stateDigest(observed, options.targets));
  lazily(plan, "priorState", () => projectState(observed, options.targets));
  plan.options = options;
  return plan;
}

/** An enumerable property made by `make` when first read (JSON.stringify and spreading read it too), or set. */
function lazily<K extends keyof Plan>(plan: Plan, key: K, make: () => Plan[K]): void {
  const settle = (value: Plan[K]) => Object.defineProperty(plan, key, { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(plan, key, { enumerable: true, configurable: true, get: () => (settle(make()) as Plan)[key], set: settle });
}
