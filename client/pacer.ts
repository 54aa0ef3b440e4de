/**
 * Client-side pacing of mutations to the API's limit (10 per 60 s per client IP). A sliding-window log, not a token bucket
 * (one with burst `limit` can send limit+1 in a window and earn a 429): a slot is granted only when fewer than `limit` grants
 * happened in the last `windowMs + marginMs`. The server counts a request when it receives it, so a slot is re-dated to when
 * its request completed (`ticket.done()`); the margin (2 %, at least 50 ms) covers callers that do not report, and clock
 * granularity. Waiters are served FIFO; a retry asks with `priority` and goes first (it still takes a slot: the server counts it).
 */
import { StoppedError } from "./errors.js";
import { tryOr } from "../system/files.js";
import { sleep } from "../system/time.js";
import { takeFrom, timesAfter, type Grant, type Taken } from "../system/concurrency.js";

export interface PacerOptions {
  limit: number;
  windowMs: number;
  /** Extra spacing on top of the window; default max(50, 2% of windowMs). */
  marginMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Where grants are recorded (default: memory); a shared store (shared-window.ts) paces a machine's processes together, as the API counts per IP. */
  store?: WindowStore;
}

/** The grants of one window, possibly shared between processes: each method is atomic for the store's other users. */
export interface WindowStore {
  /** Drop grants at or before `cutoff`; if fewer than `limit` remain, record one at `now` and return its id, else the remaining times. */
  take(now: number, cutoff: number, limit: number): Taken;
  /** Re-date a grant (its request completed at `at`). */
  redate(id: string, at: number): void;
  /** Times of the grants after `cutoff`, oldest first. */
  recent(cutoff: number): number[];
}

/** The default store: one process's memory. */
export class MemoryWindowStore implements WindowStore {
  private grants: Grant[] = [];
  private nextId = 0;

  take(now: number, cutoff: number, limit: number): Taken {
    const { grants, result } = takeFrom(this.grants, now, cutoff, limit, () => String(++this.nextId));
    this.grants = grants;
    return result;
  }

  redate(id: string, at: number): void {
    const grant = this.grants.find((g) => g.id === id);
    if (grant) grant.at = Math.max(grant.at, at);
  }

  recent(cutoff: number): number[] {
    return timesAfter(this.grants, cutoff);
  }
}

interface Waiter {
  resolve: (ticket: PacerTicket) => void;
  reject: (reason: unknown) => void;
  queuedAt: number;
  onWait?: ((waitMs: number) => void) | undefined;
}

/** A granted slot. `done()` re-dates it to now (call it when the request has completed). */
export interface PacerTicket {
  /** How long the request waited in the queue for this slot. */
  waitedMs: number;
  done(): void;
}

const notSent = (): StoppedError => new StoppedError("not sent: the run was stopped while the request waited for its rate-limit slot");

export const DEFAULT_RATE_LIMIT = { limit: 10, windowMs: 60_000 } as const;

export function defaultMarginMs(windowMs: number): number {
  return Math.max(50, Math.ceil(windowMs * 0.02));
}

/** Calls a listener (a report only): one that throws must not fail the request or stall the pump. */
export function tell(report: () => void): void {
  tryOr(report, undefined);
}

export class MutationPacer {
  readonly limit: number;
  readonly windowMs: number;
  readonly marginMs: number;
  readonly store: WindowStore;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private queue: Waiter[] = [];
  private pumping = false;

  constructor(options: PacerOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError("pacer limit must be a positive integer");
    if (!(options.windowMs > 0)) throw new RangeError("pacer windowMs must be positive");
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.marginMs = options.marginMs ?? defaultMarginMs(options.windowMs);
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleep;
    this.store = options.store ?? new MemoryWindowStore();
  }

  /**
   * Resolves when one mutation may be sent; `priority` jumps the queue. A `signal` aborted first rejects with StoppedError (no
   * slot is taken). `onWait` hears how long the pacer sleeps while this request is first in line.
   */
  acquire(options: { priority?: boolean; signal?: AbortSignal; onWait?: (waitMs: number) => void } = {}): Promise<PacerTicket> {
    return new Promise<PacerTicket>((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted) return reject(notSent());
      const onAbort = (): void => {
        this.queue = this.queue.filter((w) => w !== waiter);
        reject(notSent());
        // With nobody left waiting, the pump must not sleep on (its timer keeps the process alive).
        if (this.queue.length === 0) this.wakePump?.();
      };
      const waiter: Waiter = {
        resolve: (ticket) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(ticket);
        },
        reject,
        queuedAt: this.now(),
        onWait: options.onWait,
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (options.priority) this.queue.unshift(waiter);
      else this.queue.push(waiter);
      void this.pump();
    });
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /** How long a mutation asked for now would wait (behind the current queue). */
  waitingMs(): number {
    return this.estimateDurationMs(1);
  }

  /** How long until `mutations` more (behind the current waiters) are all granted, other processes' grants included: "12 mutations take about 66 s". */
  estimateDurationMs(mutations: number): number {
    if (mutations <= 0) return 0;
    const now = this.now();
    const span = this.span();
    const grants = this.store.recent(now - span);
    let last = now;
    for (let i = 0; i < this.queue.length + mutations; i++) {
      const at = grants.length < this.limit ? now : Math.max(now, grants[grants.length - this.limit]! + span);
      grants.push(at);
      last = at;
    }
    return Math.max(0, last - now);
  }

  /**
   * After a 429 without Retry-After: until the oldest grant expires when the window is full, else one slot's share of it
   * (window / limit); doubled per consecutive 429 of one request, capped at one window.
   */
  rateLimitedWaitMs(attempt: number): number {
    const now = this.now();
    const span = this.span();
    const grants = this.store.recent(now - span);
    const share = Math.ceil(span / this.limit);
    const untilFree = grants.length >= this.limit ? grants[grants.length - this.limit]! + span - now : 0;
    return Math.min(span, Math.max(untilFree, share * 2 ** Math.max(0, attempt - 1)));
  }

  /** Pure estimate for a fresh pacer (no history): N mutations at `limit` per `windowMs`. */
  static estimateDurationMs(mutations: number, setting: { limit: number; windowMs: number; marginMs?: number }): number {
    if (mutations <= setting.limit) return 0;
    const span = setting.windowMs + (setting.marginMs ?? defaultMarginMs(setting.windowMs));
    return Math.floor((mutations - 1) / setting.limit) * span;
  }

  private wakePump: (() => void) | undefined;

  /** The pump's sleep, cut short when every waiter has gone (aborted). */
  private async sleepUnlessWoken(ms: number): Promise<void> {
    if (this.sleep !== sleep) {
      await Promise.race([this.sleep(ms), new Promise<void>((resolve) => (this.wakePump = resolve))]);
      this.wakePump = undefined;
      return;
    }
    const woken = new AbortController();
    this.wakePump = () => woken.abort();
    await sleep(ms, woken.signal);
    this.wakePump = undefined;
  }

  private span(): number {
    return this.windowMs + this.marginMs;
  }

  /** One loop at a time grants slots in queue order, sleeping until the oldest grant expires. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const now = this.now();
        const taken = this.store.take(now, now - this.span(), this.limit);
        if ("id" in taken) {
          const waiter = this.queue.shift()!;
          waiter.resolve({ waitedMs: now - waiter.queuedAt, done: () => this.store.redate(taken.id, this.now()) });
          continue;
        }
        // Another process may take the slot first: then this loop sleeps again.
        const freesAt = taken.times[taken.times.length - this.limit]! + this.span();
        const waitMs = Math.max(1, freesAt - now);
        const first = this.queue[0];
        tell(() => first?.onWait?.(waitMs));
        await this.sleepUnlessWoken(waitMs);
      }
    } catch (e) {
      // A store that cannot be read or written fails every waiter rather than hanging them.
      for (const waiter of this.queue.splice(0)) waiter.reject(e);
    } finally {
      this.pumping = false;
    }
  }
}
