/**
 * Delivering notifications without holding anything up: one bounded queue per target, sent in order by one worker each. A network error, a
 * timeout, 408, 429 and 5xx are retried (at most RETRY.attempts tries, waits (n+1)² × base, a Retry-After honoured up to RETRY.maxWaitMs);
 * other answers are final. A full queue drops its oldest waiting event. Every outcome is counted.
 */
import { parseRetryAfter } from "../../client/light.js";
import type { NotifyEvent } from "./event.js";

export type NotifyFormat = "json" | "slack";

export interface DeliveryCounters {
  sent(): void;
  /** An attempt that failed (it may be retried). */
  failed(): void;
  /** An event given up: the queue was full, the retries ran out, or the answer was final. */
  dropped(): void;
  /** How many events wait, over all targets. */
  waiting(n: number): void;
}

/** What one POST answered. */
export interface PostAnswer {
  status: number;
  retryAfter?: string;
}

export type Post = (url: URL, body: string, headers: Record<string, string>) => Promise<PostAnswer>;

export interface DeliveryOptions {
  post: Post;
  /** The body and headers of an event for a format, signed at the time of the attempt. */
  render: (event: NotifyEvent, format: NotifyFormat, nowMs: number) => { body: string; headers: Record<string, string> };
  counters: DeliveryCounters;
  /** One line for the log; never the url's path (a Slack url's path is its key) or a secret. */
  log: (line: string) => void;
  retry?: Partial<typeof RETRY>;
  maxQueue?: number;
  /** An event delivered to a target, or given up there (`error` says why; never the url's path). */
  settled?: (event: NotifyEvent, channel: string, error: string | null) => void;
  now?: () => number;
}

export const RETRY = { attempts: 5, baseMs: 1000, maxWaitMs: 5 * 60_000 };
export const MAX_QUEUE = 100;

export interface Target {
  url: URL;
  format: NotifyFormat;
}

/** The url as logs show it: its origin only (the path may be a key). */
export const shownTarget = (url: URL): string => `${url.protocol}//${url.host}`;

export class Deliveries {
  private readonly queues: TargetQueue[];
  private readonly retry: typeof RETRY;

  constructor(
    targets: readonly Target[],
    private readonly options: DeliveryOptions,
  ) {
    this.retry = { ...RETRY, ...options.retry };
    this.queues = targets.map(
      (target) => new TargetQueue(target, this.options, this.retry, options.maxQueue ?? MAX_QUEUE, () => this.report()),
    );
  }

  /** Queues the event for every target and returns at once. */
  send(event: NotifyEvent): void {
    for (const queue of this.queues) queue.push(event);
    this.report();
  }

  /** Waits for every queue to empty, up to `deadlineMs`; what is left then is dropped (counted). Returns how many were dropped so. */
  async close(deadlineMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
    await Promise.race([Promise.all(this.queues.map((queue) => queue.idle())), deadline]);
    clearTimeout(timer);
    const left = this.queues.reduce((sum, queue) => sum + queue.abandon(), 0);
    this.report();
    return left;
  }

  private report(): void {
    this.options.counters.waiting(this.queues.reduce((sum, queue) => sum + queue.size, 0));
  }
}

class TargetQueue {
  private readonly waiting: NotifyEvent[] = [];
  private running: Promise<void> | undefined;
  private inFlight = false;
  private abandoned = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly target: Target,
    private readonly options: DeliveryOptions,
    private readonly retry: typeof RETRY,
    private readonly max: number,
    private readonly changed: () => void,
  ) {}

  get size(): number {
    return this.waiting.length + (this.inFlight ? 1 : 0);
  }

  push(event: NotifyEvent): void {
    if (this.abandoned) return this.options.counters.dropped();
    this.waiting.push(event);
    if (this.waiting.length > this.max) {
      const dropped = this.waiting.shift()!;
      this.options.counters.dropped();
      this.options.settled?.(dropped, shownTarget(this.target.url), `queue full (${this.max}): dropped`);
      this.options.log(`notify ${shownTarget(this.target.url)}: queue full (${this.max}), the oldest waiting event was dropped`);
    }
    this.running ??= this.work().finally(() => (this.running = undefined));
  }

  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Stops: what waits is dropped, a wait between tries ends (the event in flight is dropped after its attempt). */
  abandon(): number {
    this.abandoned = true;
    const left = this.size;
    for (let i = 0; i < this.waiting.length; i++) this.options.counters.dropped();
    this.waiting.length = 0;
    this.wake?.();
    return left;
  }

  private async work(): Promise<void> {
    for (let event = this.waiting.shift(); event !== undefined && !this.abandoned; event = this.waiting.shift()) {
      this.inFlight = true;
      try {
        await this.deliver(event);
      } finally {
        this.inFlight = false;
        this.changed();
      }
    }
  }

  private async deliver(event: NotifyEvent): Promise<void> {
    const where = shownTarget(this.target.url);
    for (let attempt = 1; ; attempt++) {
      const { body, headers } = this.options.render(event, this.target.format, this.now());
      const answer = await this.options.post(this.target.url, body, headers).catch((error: unknown) => ({ error: errorText(error) }));
      if ("status" in answer && answer.status >= 200 && answer.status < 300) {
        this.options.counters.sent();
        return this.options.settled?.(event, where, null);
      }
      this.options.counters.failed();
      const what = "status" in answer ? `HTTP ${answer.status}` : answer.error;
      const retryable = !("status" in answer) || answer.status === 408 || answer.status === 429 || answer.status >= 500;
      if (!retryable || attempt >= this.retry.attempts || this.abandoned) {
        const why = `not delivered: ${what}${retryable ? ` after ${attempt} tries` : " (not retried)"}`;
        this.options.counters.dropped();
        this.options.settled?.(event, where, why);
        this.options.log(`notify ${where}: ${event.type} ${event.id} ${why}`);
        return;
      }
      const waitMs = this.waitMs(attempt, "status" in answer ? answer.retryAfter : undefined);
      this.options.log(`notify ${where}: ${event.type} ${event.id}: ${what}; retrying in ${Math.round(waitMs / 100) / 10} s`);
      await this.sleep(waitMs);
    }
  }

  private waitMs(attempt: number, retryAfter: string | undefined): number {
    const asked = parseRetryAfter(retryAfter, this.now());
    return Math.min(this.retry.maxWaitMs, asked === undefined ? attempt * attempt * this.retry.baseMs : asked * 1000);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}

function errorText(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : error instanceof Error ? (error.message.split("\n")[0] ?? "error") : "error";
}
