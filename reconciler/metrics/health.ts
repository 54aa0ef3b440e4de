/**
 * What the watch loop's probes answer. /livez: the loop runs (not ended, no round under way for too long). /readyz (= /healthz): the process
 * serves: rounds finish within a few intervals and the last one that reached the API did not fail there (503 at the first such failure, or
 * when rounds stop). A failing source never makes it 503: a pod out of its Service could not receive the push that fixes it (/status says).
 */
import type { Health } from "./server.js";

/** "A few intervals": a last success older than this many intervals is not ready. */
export const READY_INTERVALS = 3;
/** However short the interval, a success this recent is fresh (a round itself takes time). */
export const MIN_READY_WINDOW_MS = 30_000;

export class WatchHealth {
  private lastSuccessAt: number | undefined;
  private lastFailure: string | undefined = undefined;
  private lastSourceOnlyAt: number | undefined;
  private roundStartedAt: number | undefined;
  private ended = false;
  private detail: string | undefined;
  private readonly details: (() => string | undefined)[] = [];
  private busy: () => boolean = () => false;
  private lastProgressAt: number | undefined;

  constructor(
    private readonly intervalMs: number,
    /** A round under way longer than this means the loop is stuck (waits and pacing included). */
    private readonly stuckAfterMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  roundStarted(): void {
    this.roundStartedAt = this.now();
  }

  roundSucceeded(): void {
    this.lastSuccessAt = this.now();
    this.lastFailure = undefined;
    this.roundStartedAt = undefined;
  }

  roundFailed(reason: string): void {
    this.lastFailure = reason;
    this.roundStartedAt = undefined;
  }

  /** The round failed at its source before reaching the API (nothing good loaded yet): it finished, and says nothing of the API. */
  roundEndedAtSource(): void {
    this.lastSourceOnlyAt = this.now();
    this.roundStartedAt = undefined;
  }

  /** A line the readiness body adds (a git source's revision). */
  setDetail(detail: string): void {
    this.detail = detail;
  }

  /** More lines the readiness body adds while they say something (a rollout under way); they never change whether it is ready. */
  addDetail(lines: () => string | undefined): void {
    this.details.push(lines);
  }

  /** While this says so (a rollout under way, whose health waits make a round long), a round that has not finished yet is no reason to be unready; /livez still catches a stuck one. */
  longRoundWhile(busy: () => boolean): void {
    this.busy = busy;
  }

  /** The round under way moved on (a rollout batch reached a phase): a long rollout that keeps moving is not a stuck round. */
  roundProgressed(): void {
    this.lastProgressAt = this.now();
  }

  loopEnded(): void {
    this.ended = true;
  }

  live(): Health {
    if (this.ended) return { ok: false, reason: "the watch loop has ended" };
    const running = this.roundStartedAt === undefined ? 0 : this.now() - Math.max(this.roundStartedAt, this.lastProgressAt ?? -Infinity);
    if (running > this.stuckAfterMs) return { ok: false, reason: `a round has been under way for ${Math.round(running / 1000)} s` };
    return { ok: true, reason: "" };
  }

  ready(): Health {
    const health = this.readiness();
    const lines = [this.detail, ...this.details.map((lines) => lines())].filter((line): line is string => line !== undefined);
    return lines.length === 0 ? health : { ...health, detail: lines.join("\n") };
  }

  private readiness(): Health {
    if (this.ended) return { ok: false, reason: "the watch loop has ended" };
    if (this.lastFailure !== undefined) return { ok: false, reason: `the last round failed: ${this.lastFailure}` };
    if (this.roundStartedAt !== undefined && this.busy() && this.live().ok) return { ok: true, reason: "" };
    const lastFinished = Math.max(this.lastSuccessAt ?? -Infinity, this.lastSourceOnlyAt ?? -Infinity);
    if (lastFinished === -Infinity) return { ok: false, reason: "no round has finished yet" };
    const age = this.now() - lastFinished;
    const window = Math.max(MIN_READY_WINDOW_MS, READY_INTERVALS * this.intervalMs);
    if (age > window)
      return { ok: false, reason: `the last round finished ${Math.round(age / 1000)} s ago (more than ${Math.round(window / 1000)} s)` };
    return { ok: true, reason: "" };
  }

  /** Seconds since the epoch of the last successful round; 0 when none. */
  lastSuccessSeconds(): number {
    return this.lastSuccessAt === undefined ? 0 : this.lastSuccessAt / 1000;
  }
}
