/**
 * Pacing of mutations, and 429s. Every mutation takes a pacer slot first (a resend too, with priority: the server counts it).
 * A 429 was not performed, so any method is resent, if `onRateLimit` agrees, after Retry-After, else after the pacer's
 * estimate plus up to 25 % jitter (processes told 429 together do not resend together); a read waits at most
 * READ_RATE_LIMIT_MAX_WAIT_MS, so one 429 does not stall a report. Once `signal` aborts nothing new is sent (StoppedError).
 */
import { RateLimitedError, StoppedError } from "./errors.js";
import { tell, type MutationPacer } from "./pacer.js";
import { isMutating, type ApiRequest, type ApiResponse, type Send } from "./transport.js";

/** Cap of a read's wait after a 429 (its Retry-After included). */
export const READ_RATE_LIMIT_MAX_WAIT_MS = 5_000;

/** A wait before a send: for a pacer slot, or after the API answered 429. */
export interface RateWait {
  reason: "pacing" | "rate_limited";
  method: string;
  path: string;
  waitMs: number;
}

/** Hears each wait as it starts and when it is over (for a countdown; the request is sent next). */
export interface RateWaitListener {
  started(wait: RateWait): void;
  ended(): void;
}

export interface ThrottleOptions {
  pacer: MutationPacer;
  /** Decide whether to wait `waitMs` and resend; `attempt` counts this call's 429s, from 1. */
  onRateLimit: (waitMs: number, req: ApiRequest, attempt: number) => boolean;
  sleep: (ms: number) => Promise<void>;
  /** Called when a mutation had to wait for its pacer slot. */
  onPaced?: (req: ApiRequest, waitMs: number) => void;
  /** Aborted: send nothing new. */
  signal?: AbortSignal;
  waits?: RateWaitListener;
}

function rateLimitWaitMs(err: RateLimitedError, req: ApiRequest, attempt: number, pacer: MutationPacer): number {
  const told = err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : undefined;
  const base = told ?? Math.round(pacer.rateLimitedWaitMs(attempt) * (1 + 0.25 * Math.random()));
  return isMutating(req.method) ? base : Math.min(base, READ_RATE_LIMIT_MAX_WAIT_MS);
}

export function stoppedBeforeSending(req: ApiRequest): StoppedError {
  return new StoppedError(`not sent: the run was stopped before ${req.method} ${req.path}`, { method: req.method, path: req.path });
}

export function withThrottle(next: Send, options: ThrottleOptions): Send {
  async function paced(req: ApiRequest): Promise<ApiResponse> {
    if (options.signal?.aborted) throw stoppedBeforeSending(req);
    if (!isMutating(req.method)) return next(req);
    let waited = false;
    const onWait = (waitMs: number): void => {
      waited = true;
      tell(() => options.waits?.started({ reason: "pacing", method: req.method, path: req.path, waitMs }));
    };
    let ticket;
    try {
      ticket = await options.pacer.acquire({
        priority: req.progress.retries > 0,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.waits ? { onWait } : {}),
      });
    } finally {
      if (waited) tell(() => options.waits?.ended());
    }
    if (ticket.waitedMs > 0) options.onPaced?.(req, ticket.waitedMs);
    try {
      return await next(req);
    } finally {
      // The server received it before now: date the slot from here.
      ticket.done();
    }
  }

  return async (req) => {
    for (let rateLimited = 1; ; rateLimited++) {
      try {
        return await paced(req);
      } catch (err) {
        if (!(err instanceof RateLimitedError)) throw err;
        const waitMs = rateLimitWaitMs(err, req, rateLimited, options.pacer);
        if (!options.onRateLimit(waitMs, req, rateLimited)) throw err;
        tell(() => options.waits?.started({ reason: "rate_limited", method: req.method, path: req.path, waitMs }));
        try {
          await options.sleep(waitMs);
        } finally {
          tell(() => options.waits?.ended());
        }
        req.progress.retries++;
      }
    }
  };
}
