/** apply: carry out a plan's steps in order, then observe again and diff with the same options to say whether the space converged. */
import type { ExecContext } from "./context.js";
import { diff } from "./diff.js";
import { executeStep } from "./execute.js";
import { observe } from "./observe.js";
import { runRolloutBatch } from "./rollout.js";
import type { ApplyResult, DesiredState, ObservedState, Plan, Step, StepOutcome } from "./types.js";
import { isMutation } from "./types.js";

export interface RunOptions {
  /** Stop at the first failed step (default true); the rest are reported as skipped. */
  stopOnError?: boolean;
  /** Checked between steps: true stops gracefully (e.g. on SIGTERM). */
  shouldStop?: () => boolean;
}

export type RunResult = { outcomes: StepOutcome[]; mutationsSent: number };

export type ApplyOptions = ExecContext & RunOptions & { desired: DesiredState };

export async function runSteps(steps: Step[], ctx: ExecContext & RunOptions): Promise<RunResult> {
  const mutationsBefore = ctx.client.stats?.mutations;
  const outcomes: StepOutcome[] = [];
  let stopReason: string | undefined;
  for (const step of steps) {
    stopReason ??= ctx.shouldStop?.() ? "stop requested" : ctx.signal?.aborted ? "aborted" : undefined;
    if (stopReason !== undefined) {
      outcomes.push({ step, status: "skipped", error: { code: "not_run", message: `not run: ${stopReason}` } });
      continue;
    }
    // A rollout batch reports each of its members' steps, then itself.
    const ran = step.op === "rollout-batch" ? await runRolloutBatch(step, ctx) : [await executeStep(step, ctx)];
    outcomes.push(...ran);
    const outcome = ran[ran.length - 1] as StepOutcome;
    if (outcome.status === "skipped") stopReason ??= "stop requested";
    if (outcome.status === "failed" && (ctx.stopOnError ?? true))
      stopReason = `an earlier step failed (${outcome.step.op} ${outcome.step.address})`;
  }
  const counted = outcomes.filter((o) => o.status === "done" && o.step.op !== "rollout-batch" && isMutation(o.step)).length;
  const mutationsSent = mutationsBefore !== undefined && ctx.client.stats ? ctx.client.stats.mutations - mutationsBefore : counted;
  return { outcomes, mutationsSent };
}

export async function apply(plan: Plan, options: ApplyOptions): Promise<ApplyResult> {
  const { outcomes, mutationsSent } = await runSteps(plan.steps, options);
  if (options.shouldStop?.() || options.signal?.aborted) {
    // Sending nothing new after a stop request includes the reads of a fresh observation.
    return {
      outcomes,
      blocked: plan.changes.filter((change) => change.blocked),
      after: plan,
      converged: false,
      mutationsSent,
      stopped: true,
    };
  }
  const observed = await observe(options.client, {
    cubeNames: plan.options.targets,
    webhooks: options.desired.webhooks !== undefined,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const after = diff(options.desired, withoutDeletedCubes(observed, outcomes), plan.options);
  const converged = after.changes.every((change) => change.action === "noop" || change.blocked !== undefined);
  return { outcomes, blocked: plan.changes.filter((change) => change.blocked), after, converged, mutationsSent };
}

/** Cubes this apply deleted may still be listed while the API finishes deleting them. */
function withoutDeletedCubes(observed: ObservedState, outcomes: StepOutcome[]): ObservedState {
  const deleted = new Set(outcomes.flatMap((o) => (o.status === "done" && o.step.op === "delete-cube" ? [o.step.cube.cubeId] : [])));
  return { ...observed, cubes: observed.cubes.filter((cube) => !deleted.has(cube.cube.id)) };
}
