/**
 * Scheduled work on the emulated clock (state transitions, snapshot completion, webhook
 * attempts). Jobs are data kept in the state, so they survive restarts. Due jobs run in
 * (at, id) order, each with its own `at` as "now", so the outcome depends only on the
 * emulated time that has passed, not on when a timer happened to fire.
 */
import type { EmulatedClock } from "./clock.js";
import type { Job, JobPayload, Store } from "./state.js";

export type JobRunner = (job: Job) => void;

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly clock: EmulatedClock,
    private readonly run: JobRunner,
    /** Called after a timer-driven run changed something (to persist it). */
    private readonly afterRun: () => void,
  ) {}

  schedule(payload: JobPayload, at: number): void {
    const job = { ...payload, id: this.store.data.nextJobId++, at } as Job;
    this.store.data.jobs.push(job);
    this.arm();
  }

  /** Runs every job due at the current emulated time; returns how many ran. */
  runDue(): number {
    if (this.running) return 0;
    this.running = true;
    let count = 0;
    try {
      const now = this.clock.now();
      for (let job = this.nextDue(now); job; job = this.nextDue(now)) {
        this.remove(job.id);
        this.run(job);
        count++;
      }
    } finally {
      this.running = false;
    }
    this.arm();
    return count;
  }

  /** Re-arms the wake-up timer, e.g. after the clock speed changed. */
  arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    const next = this.earliest();
    if (!next) return;
    const delay = Math.min(this.clock.realDelayUntil(next.at) + 1, 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      if (this.runDue() > 0) this.afterRun();
    }, delay);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private earliest(): Job | undefined {
    let best: Job | undefined;
    for (const job of this.store.data.jobs) {
      if (!best || job.at < best.at || (job.at === best.at && job.id < best.id)) best = job;
    }
    return best;
  }

  private nextDue(now: number): Job | undefined {
    const job = this.earliest();
    return job && job.at <= now ? job : undefined;
  }

  private remove(id: number): void {
    this.store.data.jobs = this.store.data.jobs.filter((job) => job.id !== id);
  }
}
