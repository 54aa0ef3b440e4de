/**
 * Carrying out one rollout batch: replace its members (their steps in phase order, paced like every mutation), then wait until each passes its
 * health check continuously for healthyFor, within the deadline. On a failure (a step, the cube in state error, the deadline, a check failing after
 * it passed): stop; with autoRevert, put the members this batch touched back on the spec they had. Members of later batches are never touched.
 */
import { nowOf, sleepFor, type ExecContext } from "./context.js";
import { deleteCubeSteps } from "./cube-rules.js";
import { executeStep } from "./execute.js";
import { probeMember, type ProbeResult } from "./health.js";
import { orderSteps } from "./phases.js";
import type { RolloutBatchStep, RolloutMember, Step, StepOutcome } from "./types.js";
import { formatDuration } from "../system/time.js";

export interface BatchRunOptions {
  shouldStop?: () => boolean;
}

/** Why a batch failed: the member and what was seen. */
interface BatchFailure {
  member: string;
  what: string;
}

export async function runRolloutBatch(batch: RolloutBatchStep, ctx: ExecContext & BatchRunOptions): Promise<StepOutcome[]> {
  const names = batch.members.map((m) => m.cubeName).join(", ");
  const label = `batch ${batch.batch} of ${batch.batches}${batch.canary ? " (canary)" : ""}`;
  rolloutNote(batch, ctx, `${label}: replacing ${names}`);
  const startedAt = nowOf(ctx);
  await ctx.rolloutProgress?.(batch, "replacing");
  const outcomes: StepOutcome[] = [];
  let failure: BatchFailure | undefined;
  const steps = orderSteps(batch.members.flatMap((member, group) => member.steps.map((step) => ({ step, group }))));
  for (const step of steps) {
    if (ctx.shouldStop?.() || ctx.signal?.aborted) {
      outcomes.push({ step, status: "skipped", error: { code: "not_run", message: "not run: stop requested" } });
      continue;
    }
    if (
      step.op === "create-cube" &&
      !batch.members.some((m) => m.cubeName === step.cube.cubeName && m.steps.some((s) => s.op === "delete-cube"))
    ) {
      // A member a stopped run was deleting: its old cube must be gone before the new one takes the name.
      await waitNameFree(step.cube.cubeName, ctx);
    }
    const outcome = await executeStep(step, ctx);
    outcomes.push(outcome);
    if (outcome.status === "failed") {
      failure = { member: cubeNameOf(step), what: `${step.op} failed: ${outcome.error?.message ?? "error"}` };
      break;
    }
  }
  if (outcomes.some((o) => o.status === "skipped"))
    return [...outcomes, { step: batch, status: "skipped", error: { code: "not_run", message: "not finished: stop requested" } }];
  if (failure === undefined) {
    await ctx.rolloutProgress?.(batch, "checking");
    failure = await healthGate(batch, ctx, startedAt, label);
  }
  if (failure === undefined) {
    await ctx.rolloutProgress?.(batch, "healthy");
    rolloutNote(batch, ctx, `${label}: ${names} healthy`);
    return [...outcomes, { step: batch, status: "done" }];
  }
  return [...outcomes, ...(await failBatch(batch, ctx, failure, outcomes, label))];
}

const cubeNameOf = (step: Step): string => ("cube" in step ? step.cube.cubeName : step.address);

const rolloutNote = (batch: RolloutBatchStep, ctx: ExecContext, message: string): void =>
  ctx.logger?.({ type: "rollout", address: batch.address, op: batch.op, message });

/** Stops the rollout: with autoRevert, the touched members are put back first; the batch's outcome says who failed, why, and where the group is. */
async function failBatch(
  batch: RolloutBatchStep,
  ctx: ExecContext,
  failure: BatchFailure,
  done: StepOutcome[],
  label: string,
): Promise<StepOutcome[]> {
  await ctx.rolloutProgress?.(batch, "failed");
  // Touched: replaced in this run, or left replaced (or missing) by a run that stopped mid-batch.
  const ran = (member: RolloutMember, op: Step["op"]): boolean =>
    done.some((o) => o.status === "done" && "cube" in o.step && o.step.cube.cubeName === member.cubeName && o.step.op === op);
  const touched = batch.members.filter((member) =>
    member.power !== undefined
      ? ran(member, member.power)
      : !member.steps.some((step) => step.op === "delete-cube") || ran(member, "delete-cube") || ran(member, "create-cube"),
  );
  const check = describeCheck(batch);
  let message = `${label} of group ${batch.group}: member ${failure.member} failed (${check}): ${failure.what}`;
  const outcomes: StepOutcome[] = [];
  const putBack: string[] = [];
  if (batch.rollout.autoRevert && touched.length > 0) {
    rolloutNote(batch, ctx, `${label}: putting ${touched.map((m) => m.cubeName).join(", ")} back on the last healthy spec`);
    const reverted: string[] = [];
    for (const member of touched) {
      const result = await revertMember(member, ctx);
      outcomes.push(...result);
      if (result.every((o) => o.status === "done")) {
        reverted.push(`${member.cubeName} (image ${member.from.image})`);
        putBack.push(member.cubeName);
      }
    }
    await ctx.rolloutProgress?.(batch, "reverted");
    const notReverted = touched.length - reverted.length;
    message += `; reverted ${reverted.join(", ") || "none"} to the last healthy spec${notReverted > 0 ? ` (${notReverted} could not be: see the failed steps)` : ""}`;
  } else if (touched.length > 0) {
    message += `; ${touched.map((m) => m.cubeName).join(", ")} left as ${touched.length === 1 ? "it is" : "they are"} (no autoRevert)`;
  }
  message += `; the members not yet replaced were not touched: the group is on the old spec${batch.batch > 1 ? ` except the ${batch.batch - 1} earlier ${batch.batch - 1 === 1 ? "batch" : "batches"}` : ""}`;
  ctx.logger?.({ type: "step-failed", address: batch.address, op: batch.op, message });
  return [
    ...outcomes,
    { step: batch, status: "failed", error: { code: "rollout_failed", message }, ...(putBack.length > 0 ? { reverted: putBack } : {}) },
  ];
}

/** Deletes what the rollout made of the member (if anything), then creates it as it was; a power change is undone by the opposite power step. */
async function revertMember(member: RolloutMember, ctx: ExecContext): Promise<StepOutcome[]> {
  const steps = member.power !== undefined ? member.revert : [...(await deleteMade(member, ctx)), ...member.revert];
  const outcomes: StepOutcome[] = [];
  for (const step of steps) {
    const outcome = await executeStep(step, ctx);
    outcomes.push(outcome);
    if (outcome.status === "failed") break;
  }
  return outcomes;
}

/** The steps that delete the cube the rollout made of the member, when there is one. */
async function deleteMade(member: RolloutMember, ctx: ExecContext): Promise<Step[]> {
  const cubeId = ctx.cubeIds.get(member.cubeName) ?? (await liveIdOf(member.cubeName, ctx));
  ctx.cubeIds.delete(member.cubeName);
  return cubeId === undefined ? [] : deleteCubeSteps(member.address, { cubeName: member.cubeName, cubeId });
}

async function waitNameFree(name: string, ctx: ExecContext): Promise<void> {
  const deadline = nowOf(ctx) + (ctx.waitTimeoutMs ?? 300_000);
  while ((await liveIdOf(name, ctx)) !== undefined && nowOf(ctx) < deadline) {
    ctx.logger?.({ type: "wait", message: `cube "${name}" is still being deleted, waiting for it to be gone` });
    await sleepFor(ctx, ctx.pollIntervalMs ?? 1_000);
  }
}

async function liveIdOf(name: string, ctx: ExecContext): Promise<string | undefined> {
  return (await ctx.client.listCubes()).find((cube) => cube.name === name && cube.state !== "deleted")?.id;
}

function describeCheck(batch: RolloutBatchStep): string {
  const { healthCheck, healthyForMs, deadlineMs } = batch.rollout;
  const what =
    healthCheck.kind === "http"
      ? `http check ${healthCheck.url} expecting ${healthCheck.expectStatus}`
      : healthCheck.kind === "tcp"
        ? `tcp check on port ${healthCheck.port}`
        : "running check";
  return `${what}, healthy for ${formatDuration(healthyForMs)} within ${formatDuration(deadlineMs)}`;
}

const COUNTDOWN_EVERY_MS = 5_000;

interface MemberHealth {
  member: RolloutMember;
  passingSince?: number;
  healthy: boolean;
  last: ProbeResult;
}

/** Polls every member until all passed continuously for healthyFor; a failure as soon as one cannot pass any more, or at the deadline. */
async function healthGate(batch: RolloutBatchStep, ctx: ExecContext, startedAt: number, label: string): Promise<BatchFailure | undefined> {
  const { healthyForMs, deadlineMs, healthCheck } = batch.rollout;
  const probe = ctx.probe ?? probeMember;
  const pollMs = ctx.pollIntervalMs ?? 1_000;
  const states: MemberHealth[] = batch.members.map((member) => ({ member, healthy: false, last: { ok: false, saw: "not checked yet" } }));
  let said = { at: -Infinity, healthy: -1 };
  for (;;) {
    for (const state of states) {
      const { member } = state;
      const cubeId = ctx.cubeIds.get(member.cubeName) ?? (await liveIdOf(member.cubeName, ctx));
      const cube = cubeId === undefined ? undefined : await ctx.client.getCube(cubeId).catch(() => undefined);
      if (cube === undefined) return { member: member.cubeName, what: "the new cube is gone" };
      if (cube.state === "error") return { member: member.cubeName, what: `the new cube ${cube.id} is in state error` };
      // A member the batch stops passes once it is stopped: no check can answer from it.
      const result =
        member.power === "power-off"
          ? { ok: cube.state === "stopped", saw: `the cube is ${cube.state}` }
          : await probe(healthCheck, {
              name: member.cubeName,
              index: member.index,
              cube,
              ...(member.hostname === undefined ? {} : { hostname: member.hostname }),
            });
      const now = nowOf(ctx);
      if (result.ok) {
        state.passingSince ??= now;
        if (!state.healthy && now - state.passingSince >= healthyForMs) {
          state.healthy = true;
          rolloutNote(batch, ctx, `${label}: ${member.cubeName} healthy (${result.saw})`);
        }
      } else if (state.healthy) {
        return { member: member.cubeName, what: `the check failed after it had passed: ${result.saw}` };
      } else {
        state.passingSince = undefined;
      }
      state.last = result;
    }
    if (states.every((s) => s.healthy)) return undefined;
    const elapsed = nowOf(ctx) - startedAt;
    if (elapsed >= deadlineMs) {
      const first = states.find((s) => !s.healthy) as MemberHealth;
      return {
        member: first.member.cubeName,
        what: `not healthy within the deadline of ${formatDuration(deadlineMs)}; last seen: ${first.last.saw}`,
      };
    }
    // A countdown every few seconds, or when a member turns healthy.
    const healthy = states.filter((s) => s.healthy).length;
    if (healthy !== said.healthy || nowOf(ctx) - said.at >= COUNTDOWN_EVERY_MS) {
      said = { at: nowOf(ctx), healthy };
      ctx.logger?.({
        type: "wait",
        address: batch.address,
        message: `${label}: ${healthy} of ${states.length} healthy; deadline in ${formatDuration(deadlineMs - elapsed)}`,
      });
    }
    await sleepFor(ctx, Math.min(pollMs, deadlineMs - elapsed));
  }
}
