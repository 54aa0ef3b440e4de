/**
 * Client-side pacing of mutating requests to the API's limit (10 per 60 s per client IP).
 *
 * A sliding-window log, not a token bucket: a bucket with burst `limit` that refills one token
 * per window/limit can send limit+1 requests inside one window and earn a 429. Here a slot is
 * granted only when fewer than `limit` grants happened in the last `windowMs + marginMs`.
 *
 * The server counts a request when it receives it, which is after we grant its slot (a new
 * connection, a slow network). So a slot is dated by when its request completed, if the caller
 * reports it (`ticket.done()`, as the client does): the server received it before that. A
 * margin on top covers callers that don't report and clock granularity: 2% of the window, at
 * least 50 ms (1.2 s for the default 60 s window).
 *
 * Waiters are served FIFO; a retry of an already-admitted request asks with `priority` and is
 * served before first attempts (it still takes a slot: the server counts it).
 */

export interface PacerOptions {
  limit: number;
  windowMs: number;
  /** Extra spacing on top of the window; default max(50, 2% of windowMs). */
  marginMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface Waiter {
  resolve: (ticket: PacerTicket) => void;
  queuedAt: number;
}

/** A granted slot. `done()` re-dates it to now (call it when the request has completed). */
export interface PacerTicket {
  /** How long the request waited in the queue for this slot. */
  waitedMs: number;
  done(): void;
}

interface Grant {
  at: number;
}

export const DEFAULT_RATE_LIMIT = { limit: 10, windowMs: 60_000 } as const;

export function defaultMarginMs(windowMs: number): number {
  return Math.max(50, Math.ceil(windowMs * 0.02));
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class MutationPacer {
  readonly limit: number;
  readonly windowMs: number;
  readonly marginMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Grants within the current (window + margin), oldest first. */
  private grants: Grant[] = [];
  private queue: Waiter[] = [];
  private pumping = false;

  constructor(options: PacerOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError("pacer limit must be a positive integer");
    if (!(options.windowMs > 0)) throw new RangeError("pacer windowMs must be positive");
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.marginMs = options.marginMs ?? defaultMarginMs(options.windowMs);
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
  }

  /** Resolves when one mutation may be sent. `priority` lets a retry jump the queue. */
  acquire(options: { priority?: boolean } = {}): Promise<PacerTicket> {
    return new Promise<PacerTicket>((resolve) => {
      const waiter = { resolve, queuedAt: this.now() };
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

  /**
   * How long until `mutations` more requests (queued behind the current waiters) have all
   * been granted, from now. For plans: "12 mutations take about 66 s at 10 per 60 s".
   */
  estimateDurationMs(mutations: number): number {
    if (mutations <= 0) return 0;
    const now = this.now();
    const span = this.span();
    const grants = this.grants.map((g) => g.at).filter((t) => t > now - span);
    let last = now;
    for (let i = 0; i < this.queue.length + mutations; i++) {
      const at = grants.length < this.limit ? now : Math.max(now, grants[grants.length - this.limit]! + span);
      grants.push(at);
      last = at;
    }
    return Math.max(0, last - now);
  }

  /** Pure estimate for a fresh pacer (no history): N mutations at `limit` per `windowMs`. */
  static estimateDurationMs(mutations: number, setting: { limit: number; windowMs: number; marginMs?: number }): number {
    if (mutations <= setting.limit) return 0;
    const span = setting.windowMs + (setting.marginMs ?? defaultMarginMs(setting.windowMs));
    return Math.floor((mutations - 1) / setting.limit) * span;
  }

  private span(): number {
    return this.windowMs + this.marginMs;
  }

  private prune(now: number): void {
    const cutoff = now - this.span();
    while (this.grants.length > 0 && this.grants[0]!.at <= cutoff) this.grants.shift();
  }

  private grant(now: number, waiter: Waiter): PacerTicket {
    const entry: Grant = { at: now };
    this.grants.push(entry);
    return {
      waitedMs: now - waiter.queuedAt,
      done: () => {
        entry.at = Math.max(entry.at, this.now());
        this.grants.sort((a, b) => a.at - b.at);
      },
    };
  }

  /** One loop at a time grants slots in queue order, sleeping until the oldest grant expires. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const now = this.now();
        this.prune(now);
        if (this.grants.length < this.limit) {
          const waiter = this.queue.shift()!;
          waiter.resolve(this.grant(now, waiter));
          continue;
        }
        await this.sleep(Math.max(1, this.grants[0]!.at + this.span() - now));
      }
    } finally {
      this.pumping = false;
    }
  }
}
