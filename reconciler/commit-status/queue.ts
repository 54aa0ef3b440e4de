/**
 * Statuses go out in order, one at a time, apart from the loop: a forge that is down delays them, never a round. A 5xx, a 429
 * or a network error is retried with exponential backoff (Retry-After when the forge sends one); any other refusal is final.
 * The token is read when a status is sent and appears in nothing that is logged.
 */
import type { Dispatcher } from "undici";
import { Backoff } from "../watch/backoff.js";
import { parseRetryAfter } from "../../client/light.js";
import type { CommitStatus, Forge } from "./types.js";
import { tryOr } from "../../system/files.js";

export type Outcome = "posted" | "retried" | "failed";

export interface QueueOptions {
  forge: Forge;
  token: () => string;
  send: (url: string, options: { method: "POST"; headers: Record<string, string>; body: string }) => Promise<Dispatcher.ResponseData>;
  /** Each attempt's result (metrics, /status); `reason` says why a status was given up. */
  counted: (status: CommitStatus, outcome: Outcome, reason?: string) => void;
  /** One line for the log, with nothing secret in it. */
  log: (line: string) => void;
  backoff?: { initialMs: number; maxMs: number };
  /** Tries of one status before it is given up (default 12: about 7 minutes with the default backoff). */
  maxAttempts?: number;
  /** Statuses waiting at most; the oldest is dropped beyond (a forge down for days must not hold a process's memory). */
  maxQueued?: number;
}

const DEFAULT_BACKOFF = { initialMs: 1000, maxMs: 60_000 };
/** A Retry-After longer than this is not waited for in full. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

export class StatusQueue {
  private readonly waiting: CommitStatus[] = [];
  private running: Promise<void> | undefined;
  private readonly closing = new AbortController();

  constructor(private readonly options: QueueOptions) {}

  push(status: CommitStatus): void {
    if (this.closing.signal.aborted) return;
    this.waiting.push(status);
    const max = this.options.maxQueued ?? 256;
    while (this.waiting.length > max) {
      const dropped = this.waiting.shift()!;
      this.options.counted(dropped, "failed", `dropped: ${max} statuses already wait for the forge`);
      this.options.log(`commit status ${dropped.state} of ${short(dropped.sha)} dropped: ${max} statuses already wait for the forge`);
    }
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Lets what waits go out (retries included) for up to `deadlineMs`, then gives the rest up. */
  async close(deadlineMs = 10_000): Promise<void> {
    const timer = setTimeout(() => this.closing.abort(), deadlineMs);
    // A request on the wire at the deadline is not waited for long (its own timeout is longer).
    const hardStop = new Promise<void>((resolve) => setTimeout(resolve, deadlineMs + 2000).unref());
    await Promise.race([this.running ?? Promise.resolve(), hardStop]);
    clearTimeout(timer);
    this.closing.abort();
    for (const status of this.waiting.splice(0)) {
      this.options.counted(status, "failed", "not sent: the process ended first");
      this.options.log(`commit status ${status.state} of ${short(status.sha)} not sent: the process ended first`);
    }
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0 && !this.closing.signal.aborted) {
      const status = this.waiting[0]!;
      await this.deliver(status);
      if (this.waiting[0] === status) this.waiting.shift();
    }
  }

  private async deliver(status: CommitStatus): Promise<void> {
    const backoff = new Backoff(this.options.backoff ?? DEFAULT_BACKOFF);
    const maxAttempts = this.options.maxAttempts ?? 12;
    for (let attempt = 1; ; attempt++) {
      const result = await this.attempt(status);
      if (result.kind === "posted") {
        this.options.counted(status, "posted");
        this.options.log(`commit status ${status.state} posted on ${short(status.sha)} (${status.context}: ${status.description})`);
        return;
      }
      const last = result.kind === "final" || attempt >= maxAttempts || this.closing.signal.aborted;
      this.options.counted(status, last ? "failed" : "retried", result.reason);
      if (last) {
        this.options.log(
          `commit status ${status.state} of ${short(status.sha)} (${status.context}) not posted to ${this.options.forge.name}: ${result.reason}${result.kind === "final" ? "" : ` (gave up after ${attempt} tries)`}`,
        );
        return;
      }
      // Exponential backoff with jitter, and never sooner than the forge's Retry-After (GitHub's rate limits send one).
      const delayMs = Math.min(Math.max(result.retryAfterMs ?? 0, backoff.next()), MAX_RETRY_AFTER_MS);
      if (attempt === 1)
        this.options.log(
          `commit status ${status.state} of ${short(status.sha)} (${status.context}): ${result.reason}; retrying (statuses wait, rounds do not)`,
        );
      await this.pause(delayMs);
    }
  }

  private async attempt(
    status: CommitStatus,
  ): Promise<{ kind: "posted" } | { kind: "retry"; reason: string; retryAfterMs?: number } | { kind: "final"; reason: string }> {
    let request;
    try {
      request = this.options.forge.request(status, this.options.token());
    } catch (error) {
      return { kind: "final", reason: (error as Error).message };
    }
    try {
      const response = await this.options.send(request.url, { method: "POST", headers: request.headers, body: request.body });
      const body = await response.body.text().catch(() => "");
      if (response.statusCode >= 200 && response.statusCode < 300) return { kind: "posted" };
      const reason = `${this.options.forge.name} answered ${response.statusCode}${forgeMessage(body)}`;
      const retryAfter = parseRetryAfter(headerOf(response.headers, "retry-after"), Date.now());
      const retryAfterMs = retryAfter === undefined ? undefined : retryAfter * 1000;
      // GitHub's secondary rate limit is a 403 with Retry-After; a 403 without one is a refusal.
      if (
        response.statusCode >= 500 ||
        response.statusCode === 429 ||
        response.statusCode === 408 ||
        (response.statusCode === 403 && retryAfterMs !== undefined)
      ) {
        return { kind: "retry", reason, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
      }
      return { kind: "final", reason };
    } catch (error) {
      return {
        kind: "retry",
        reason: `${this.options.forge.name} unreachable: ${(error as { code?: string }).code ?? (error as Error).message}`,
      };
    }
  }

  private pause(ms: number): Promise<void> {
    if (this.closing.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.closing.signal.addEventListener("abort", done, { once: true });
    });
  }
}

/** The forge's own message (JSON `message`), one line, short: the body may echo the request, the log is redacted again on the way out. */
function forgeMessage(body: string): string {
  const message = tryOr(() => (JSON.parse(body) as { message?: unknown } | null)?.message, undefined);
  if (typeof message !== "string" || message.trim() === "") return "";
  const line = message.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return `: ${line.length > 160 ? `${line.slice(0, 160)}…` : line}`;
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export const short = (sha: string): string => sha.slice(0, 12);
