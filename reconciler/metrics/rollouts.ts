/**
 * The rollouts a watch round has under way, for /readyz's detail and the `cubeform_rollout_in_progress{group}` gauge. A rollout is not a reason
 * to be unready (the process still serves): it is reported beside readiness, never instead of it.
 */
import type { RolloutBatchStep, RolloutPhase } from "../../engine/index.js";
import type { LabeledGauge } from "./registry.js";

interface UnderWay {
  batch: number;
  batches: number;
  phase: RolloutPhase;
}

export class RolloutsUnderWay {
  private readonly groups = new Map<string, UnderWay>();

  constructor(private readonly gauge: LabeledGauge) {}

  /** A batch reached a phase: the group's rollout is under way from its first batch until its last is healthy, or its failed batch put back. */
  progress(batch: RolloutBatchStep, phase: RolloutPhase): void {
    const over = phase === "reverted" || (phase === "healthy" && batch.batch === batch.batches);
    if (over) this.groups.delete(batch.group);
    else this.groups.set(batch.group, { batch: batch.batch, batches: batch.batches, phase });
    this.gauge.set(batch.group, over ? 0 : 1);
  }

  /** The round's apply ended (done, failed or stopped): nothing of it is under way any more. */
  roundEnded(): void {
    for (const group of this.groups.keys()) this.gauge.set(group, 0);
    this.groups.clear();
  }

  active(): boolean {
    return this.groups.size > 0;
  }

  /** "rollout_in_progress: web (batch 2 of 5, checking)", one line per group; undefined when none. */
  detail(): string | undefined {
    if (this.groups.size === 0) return undefined;
    return [...this.groups]
      .map(([group, at]) => `rollout_in_progress: ${group} (batch ${at.batch} of ${at.batches}, ${at.phase})`)
      .join("\n");
  }
}
