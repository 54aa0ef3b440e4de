/**
 * `--notify` on `apply` and `drift` (CI): the events of one run, sent as the run ends (bounded by ONE_SHOT_DEADLINE_MS: a receiver that is down
 * delays the exit by at most that, never the apply). One run has no memory of the last, so its drift is told each run; the body's
 * fingerprint lets a receiver drop what it has seen.
 */
import type { ApplyResult, Plan } from "../../engine/index.js";
import { hasCode } from "../errors.js";
import type { CliIo } from "../io.js";
import { visibleChanges } from "../render/values.js";
import { applyFailed, budgetBlocked, driftDetected, policyBlocked, policyOverridden, rolloutsReverted } from "./builders.js";
import { driftEntry } from "./drift.js";
import type { EventOrigin, NotifySource } from "./event.js";
import { Notifier, type NotifySettings } from "./notifier.js";

export const ONE_SHOT_DEADLINE_MS = 20_000;

/** What `apply --notify` tells: a failed apply, a reverted rollout, changes refused for the budget or a policy, and overrides used. */
export class ApplyNotices {
  private readonly notifier: Notifier;
  private plan: Plan | undefined;
  private readonly origin: EventOrigin;

  constructor(settings: NotifySettings, source: NotifySource, io: CliIo) {
    this.notifier = new Notifier(settings, io);
    this.origin = { command: "apply", source, space: null, revision: null };
  }

  planned(plan: Plan): void {
    this.plan = plan;
    this.origin.space = plan.spaceId;
    this.origin.revision = plan.source?.revision ?? null;
  }

  applied(result: ApplyResult): void {
    const reverted = rolloutsReverted(this.origin, result.outcomes);
    for (const event of reverted) this.notifier.send(event);
    const failed = result.outcomes.find((o) => o.status === "failed" && o.error?.code !== "stopped");
    if (failed !== undefined && reverted.length === 0) {
      this.notifier.send(
        applyFailed(
          this.origin,
          { code: failed.error?.code, message: `${failed.step.op} ${failed.step.address}: ${failed.error?.message ?? "failed"}` },
          result.outcomes,
        ),
      );
    }
    const overrides = this.plan?.policy?.overrides ?? [];
    if (overrides.length > 0) this.notifier.send(policyOverridden(this.origin, overrides, failed === undefined ? "applied" : "failed"));
  }

  /** A refusal after the plan (budget, policy) is told as what held it; any other error after the plan as a failed apply. */
  failed(error: unknown, io: CliIo): void {
    const plan = this.plan;
    if (plan === undefined) return;
    const code = hasCode(error) ? error.code : undefined;
    if (code === "over_budget" || code === "unknown_cost") return this.notifier.send(budgetBlocked(this.origin, plan));
    if (code === "policy_violation") return this.notifier.send(policyBlocked(this.origin, plan));
    if (code === "stopped" || code === "cancelled") return;
    const message = error instanceof Error ? error.message : String(error);
    this.notifier.send(applyFailed(this.origin, { code, message: io.secrets?.redact(message) ?? message }));
  }

  async close(io: CliIo): Promise<void> {
    const dropped = await this.notifier.close(ONE_SHOT_DEADLINE_MS);
    if (dropped > 0)
      io.stderr.write(
        `notify: ${dropped} ${dropped === 1 ? "event was" : "events were"} not delivered within ${ONE_SHOT_DEADLINE_MS / 1000} s\n`,
      );
  }
}

/** `drift --notify`: one drift.detected when the space differs from the file. */
export async function notifyDrift(settings: NotifySettings, source: NotifySource, plan: Plan, io: CliIo): Promise<void> {
  const entries = visibleChanges(plan).map(driftEntry);
  if (entries.length === 0) return;
  const notifier = new Notifier(settings, io);
  notifier.send(driftDetected({ command: "drift", source, space: plan.spaceId, revision: plan.source?.revision ?? null }, entries, false));
  const dropped = await notifier.close(ONE_SHOT_DEADLINE_MS);
  if (dropped > 0) io.stderr.write(`notify: the drift event was not delivered within ${ONE_SHOT_DEADLINE_MS / 1000} s\n`);
}
