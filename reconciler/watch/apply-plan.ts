/** Carrying out a plan for apply, watch and demo: secrets from the environment, step lines on a stream, a stop check between steps. */
import {
  apply,
  flatSteps,
  markRefused,
  refusedOf,
  type RolloutBatchStep,
  type RolloutPhase,
  type ApplyResult,
  type DesiredState,
  type EngineLogger,
  type Plan,
  type ResourceChange,
  type StepOutcome,
} from "../../engine/index.js";
import type { Connection } from "../session/connect.js";
import { writeFileAtomic } from "../../system/files.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import { CliError } from "../errors.js";

export interface ApplyPlanOptions {
  env: Record<string, string | undefined>;
  out: NodeJS.WritableStream;
  shouldStop: () => boolean;
  waitTimeoutMs: number;
  pollIntervalMs: number;
  /** A rollout batch reached a phase (after the journal has it): watch reports rollouts under way. */
  onRolloutProgress?: (batch: RolloutBatchStep, phase: RolloutPhase) => void;
  /** `cubeform apply`'s io: its signal goes to the engine, a webhook secret written joins its secrets, and waits are shown. */
  io?: CliIo;
}

/** A change policy refused stays refused in the plan made after the apply (blocked, not an open change left to do). */
export async function applyPlan(conn: Connection, plan: Plan, desired: DesiredState, options: ApplyPlanOptions): Promise<ApplyResult> {
  const result = await applyWith(conn, plan, desired, options);
  return { ...result, after: markRefused(result.after, refusedOf(plan)) };
}

function applyWith(conn: Connection, plan: Plan, desired: DesiredState, options: ApplyPlanOptions): Promise<ApplyResult> {
  const { io } = options;
  return apply(plan, {
    client: conn.client,
    spaceId: conn.spaceId,
    journal: conn.journal,
    secrets: (ref) => options.env[ref.env],
    cubeIds: new Map(),
    logger: stepLogger(options.out, io === undefined ? undefined : conn),
    waitTimeoutMs: options.waitTimeoutMs,
    pollIntervalMs: options.pollIntervalMs,
    desired,
    shouldStop: options.shouldStop,
    ...(io?.signal ? { signal: io.signal } : {}),
    recheckNameBeforeCreate: true,
    // A webhook's signing secret, returned once at create, goes only to the file the entry names, readable by its owner.
    writeWebhookSecret: (path, secret) => {
      io?.secrets?.add(secret);
      return writeFileAtomic(path, `${secret}\n`, { mode: 0o600 });
    },
    onDeleteAccepted: (cubeId, name) => conn.deletions.started(cubeId, name),
    rolloutProgress: async (batch, phase) => {
      await conn.rollouts.progress(conn.spaceId, batch, phase);
      options.onRolloutProgress?.(batch, phase);
    },
    onSecretApplied: (slot, env, value) => conn.secretMemory.remember({ spaceId: conn.spaceId, ...slot }, env, value),
  });
}

/** With `waits` (apply), each step is named to the rate-wait notices and its waits are shown. */
function stepLogger(out: NodeJS.WritableStream, waits: Pick<Connection, "rateWaits"> | undefined): EngineLogger {
  return (event) => {
    const what = [event.op, event.address].filter(Boolean).join(" ");
    if (event.type === "step-start") waits?.rateWaits.activity(what);
    if (event.type === "step-done") writeLine(out, escapeText(`  ✓ ${what}`));
    else if (event.type === "step-failed") writeLine(out, escapeText(`  ✗ ${what}${event.message ? `: ${event.message}` : ""}`));
    else if (event.type === "note") writeLine(out, escapeText(`  • ${what}${event.message ? `: ${event.message}` : ""}`));
    else if (event.type === "rollout") writeLine(out, escapeText(`  ▸ ${event.address} ${event.message ?? ""}`));
    else if (event.type === "wait" && waits !== undefined)
      writeLine(out, escapeText(`  … ${what}${event.message ? ` ${event.message}` : ""}`));
  };
}

export const failedLine = (o: StepOutcome): string =>
  escapeText(`Failed: ${o.step.op} ${o.step.address}: ${o.error?.message ?? "unknown error"}`);
export const blockedLine = (change: ResourceChange): string =>
  escapeText(`Blocked: ${change.address}: ${change.blocked?.reason ?? "not allowed"}`);
export const mutationsSent = (n: number): string => `${n} API ${n === 1 ? "mutation" : "mutations"} sent`;

/** One line per failed step and blocked change, then a count; empty lines are never written. */
export function applySummaryLines(result: ApplyResult): string[] {
  const failed = result.outcomes.filter((o) => o.status === "failed").map(failedLine);
  const done = result.outcomes.filter((o) => o.status === "done").length;
  return [
    ...failed,
    ...result.blocked.map(blockedLine),
    `Applied ${done} of ${result.outcomes.length} steps; ${mutationsSent(result.mutationsSent)}.`,
  ];
}

/** A failed step's error, for callers that turn a failed apply into one error. */
export function firstFailure(result: ApplyResult): { code: string; message: string; terminal: boolean } | undefined {
  const failed = result.outcomes.find((o) => o.status === "failed");
  return failed
    ? {
        code: failed.error?.code ?? "step_failed",
        message: `${failed.step.op} ${failed.step.address}: ${failed.error?.message ?? "failed"}`,
        terminal: failed.error?.terminal === true,
      }
    : undefined;
}

/** Checks up front that every referenced secret is set; the engine reads them by reference. */
export function checkSecrets(names: string[], io: CliIo): void {
  const missing = names.find((name) => io.env[name] === undefined);
  if (missing !== undefined)
    throw new CliError("secret_missing", `environment variable ${missing} is not set (a domain's basicAuthPassword refers to it)`);
}

export function secretNamesOf(plan: Plan): string[] {
  const names = new Set<string>();
  for (const step of flatSteps(plan.steps))
    if ((step.op === "attach-domain" || step.op === "patch-domain") && step.basicAuthPassword) names.add(step.basicAuthPassword.env);
  return [...names];
}
