/**
 * `watch --notify`: the loop's rounds as notifications. Drift is told once per fingerprint (drift.ts); a broken commit once per commit; a
 * failed apply, a held change (budget, policy) and a reverted rollout once per revision and reason until a round gets past them. Nothing here
 * waits for a receiver: events are queued (delivery.ts).
 */
import type { RevisionLoaded, RoundEnd, WatchObserver } from "../watch/events.js";
import {
  applyFailed,
  budgetBlocked,
  driftDetected,
  driftFlapping,
  driftRepaired,
  policyBlocked,
  rolloutsReverted,
  sourceBroken,
} from "./builders.js";
import { driftEntry, DriftTracker, type FLAP } from "./drift.js";
import type { EventOrigin, NotifySource } from "./event.js";
import type { Notifier } from "./notifier.js";
import { OncePer } from "./once.js";

/** How long the end of watch waits for queued notifications. */
export const CLOSE_DEADLINE_MS = 5_000;

export class NotifyObserver implements WatchObserver {
  private space: string | null = null;
  private revision: string | null = null;
  private readonly drift: DriftTracker;
  private readonly brokenTold = new OncePer();
  /** apply.failed, budget.blocked, policy.blocked and rollout.reverted keys told since the last round that got past them. */
  private readonly heldTold = new OncePer();

  constructor(
    private readonly notifier: Notifier,
    private readonly source: NotifySource,
    private readonly options: { flap?: typeof FLAP; now?: () => number } = {},
  ) {
    this.drift = new DriftTracker(options.flap);
  }

  revisionLoaded(event: RevisionLoaded): void {
    this.revision = event.revision ?? null;
    if (event.brokenRevision !== undefined) {
      if (this.brokenTold.first(`commit ${event.brokenRevision}`))
        this.notifier.send(sourceBroken(this.origin(), event.brokenRevision, event.sourceError ?? "does not load", this.revision));
      return;
    }
    // Local files that broke after a good load (no commit to name): once per distinct error, as a round that ends at the source.
    if (event.sourceError !== undefined && this.brokenTold.first(`error ${event.sourceError}`))
      this.notifier.send(sourceBroken(this.origin(), null, event.sourceError, this.revision));
  }

  roundEnded(event: RoundEnd): void {
    if (event.plan !== undefined) this.space = event.plan.spaceId;
    this.revision = event.revision ?? this.revision;
    if (event.outcome === "stopped") return;
    if (event.outcome === "source-failed") {
      const message = event.error?.message ?? "the source does not load";
      if (this.brokenTold.first(`error ${message}`)) this.notifier.send(sourceBroken(this.origin(), null, message, null));
      return;
    }
    if (event.plan === undefined) return;
    this.tellDrift(event);
    this.tellHeld(event);
    if (event.outcome === "succeeded" && event.held === undefined) this.heldTold.clear();
  }

  async close(): Promise<void> {
    await this.notifier.close(CLOSE_DEADLINE_MS);
  }

  private tellDrift(event: RoundEnd): void {
    const news = this.drift.observe(event.drift.map(driftEntry), new Set(event.repaired.map((change) => change.address)), this.now());
    const origin = this.origin();
    if (news.repaired.length > 0) this.notifier.send(driftRepaired(origin, news.repaired, event.mutations));
    if (news.detected.length > 0) this.notifier.send(driftDetected(origin, news.detected, event.applying));
    if (news.flapping.length > 0) this.notifier.send(driftFlapping(origin, news.flapping));
  }

  /** Budget or policy holding changes, a reverted rollout, a failed apply: each once per revision and reason. */
  private tellHeld(event: RoundEnd): void {
    const origin = this.origin();
    const plan = event.plan!;
    const at = event.revision ?? "files";
    if (event.held === "budget" && this.heldTold.first(`budget ${at} ${JSON.stringify(plan.cost)}`))
      this.notifier.send(budgetBlocked(origin, plan));
    if (event.held === "policy") {
      const blocked = policyBlocked(origin, plan);
      if (this.heldTold.first(`policy ${at} ${JSON.stringify(blocked.details.violations)}`)) this.notifier.send(blocked);
    }
    if (event.outcome !== "failed" || !event.applying) return;
    const reverted = rolloutsReverted(origin, event.outcomes ?? []).filter((e) =>
      this.heldTold.first(`rollout ${at} ${String(e.details.group)} ${String(e.details.batch)}`),
    );
    for (const revert of reverted) this.notifier.send(revert);
    // A reverted rollout is the failure: told once, as rollout.reverted.
    const reverts = (event.outcomes ?? []).some((o) => (o.reverted?.length ?? 0) > 0);
    const error = event.error ?? { code: undefined, message: "the apply failed" };
    // By what failed, not the message (it may name a request id): the same failure every round is one event.
    const failed = (event.outcomes ?? []).filter((o) => o.status === "failed").map((o) => `${o.step.op} ${o.step.address}`);
    if (!reverts && this.heldTold.first(`apply ${at} ${error.code ?? ""} ${failed.join(",") || error.message}`))
      this.notifier.send(applyFailed(origin, error, event.outcomes ?? []));
  }

  private origin(): EventOrigin {
    return { command: "watch", source: this.source, space: this.space, revision: this.revision };
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}
