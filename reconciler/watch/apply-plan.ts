/**
 * Carrying out a plan through the engine for watch and demo: secrets from the environment,
 * step lines on a stream, and a stop check between steps (the step under way always finishes).
 */
import { apply, type ApplyResult, type DesiredState, type EngineLogger, type Plan, type SecretRef } from "../../engine/index.js";
import type { Connection } from "../connect.js";
import { writeWebhookSecret } from "../actions/webhook-secret.js";
import { writeLine } from "../io.js";
import { escapeText } from "../render/escape.js";

export interface ApplyPlanOptions {
  env: Record<string, string | undefined>;
  out: NodeJS.WritableStream;
  shouldStop: () => boolean;
  waitTimeoutMs: number;
  pollIntervalMs: number;
}

export function applyPlan(conn: Connection, plan: Plan, desired: DesiredState, options: ApplyPlanOptions): Promise<ApplyResult> {
  return apply(plan, {
    client: conn.client,
    spaceId: conn.spaceId,
    journal: conn.journal,
    secrets: (ref: SecretRef) => options.env[ref.env],
    cubeIds: new Map(),
    logger: stepLogger(options.out),
    waitTimeoutMs: options.waitTimeoutMs,
    pollIntervalMs: options.pollIntervalMs,
    desired,
    shouldStop: options.shouldStop,
    recheckNameBeforeCreate: true,
    writeWebhookSecret,
    onDeleteAccepted: (cubeId, name) => conn.deletions.started(cubeId, name),
    onSecretApplied: (slot, env, value) => conn.secretMemory.remember({ spaceId: conn.spaceId, ...slot }, env, value),
  });
}

function stepLogger(out: NodeJS.WritableStream): EngineLogger {
  return (event) => {
    const what = [event.op, event.address].filter(Boolean).join(" ");
    if (event.type === "step-done") writeLine(out, `  ✓ ${what}`);
    else if (event.type === "step-failed") writeLine(out, escapeText(`  ✗ ${what}${event.message ? `: ${event.message}` : ""}`));
  };
}

/** One line per failed step and blocked change, then a count; empty lines are never written. */
export function applySummaryLines(result: ApplyResult): string[] {
  const lines: string[] = [];
  for (const o of result.outcomes) if (o.status === "failed") lines.push(`Failed: ${o.step.op} ${o.step.address}: ${o.error?.message ?? "unknown error"}`);
  for (const change of result.blocked) lines.push(`Blocked: ${change.address}: ${change.blocked?.reason ?? "not allowed"}`);
  const done = result.outcomes.filter((o) => o.status === "done").length;
  lines.push(`Applied ${done} of ${result.outcomes.length} steps; ${result.mutationsSent} API ${result.mutationsSent === 1 ? "mutation" : "mutations"} sent.`);
  return lines;
}

/** A failed step's error, for callers that turn a failed apply into one error. */
export function firstFailure(result: ApplyResult): { code: string; message: string } | undefined {
  const failed = result.outcomes.find((o) => o.status === "failed");
  return failed ? { code: failed.error?.code ?? "step_failed", message: `${failed.step.op} ${failed.step.address}: ${failed.error?.message ?? "failed"}` } : undefined;
}
