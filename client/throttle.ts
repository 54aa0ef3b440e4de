/**
 * The throttle wrapper: owns pacing of mutating requests and the 429 status.
 *
 * Every non-GET/HEAD send first takes a pacer slot (a resend takes it with priority: it jumps
 * the queue but still uses a slot, since the server counts it). A 429 means the server did not
 * perform the request, so any method is resent after Retry-After (60 s when absent), if the
 * required `onRateLimit` callback agrees.
 */
import { RateLimitedError } from "./errors.js";
import type { MutationPacer } from "./pacer.js";
import { isMutating, type ApiRequest, type ApiResponse, type Send } from "./transport.js";

export const DEFAULT_RETRY_AFTER_SECONDS = 60;

export interface ThrottleOptions {
  pacer: MutationPacer;
  /** Decide whether to wait `retryAfterSeconds` and resend; `attempt` counts this call's 429s, from 1. */
  onRateLimit: (retryAfterSeconds: number, req: ApiRequest, attempt: number) => boolean;
  sleep: (ms: number) => Promise<void>;
  /** Called when a mutation had to wait for its pacer slot. */
  onPaced?: (req: ApiRequest, waitMs: number) => void;
}

export function withThrottle(next: Send, options: ThrottleOptions): Send {
  if (typeof options.onRateLimit !== "function") throw new TypeError("withThrottle needs an onRateLimit callback");
  async function paced(req: ApiRequest): Promise<ApiResponse> {
    if (!isMutating(req.method)) return next(req);
    const ticket = await options.pacer.acquire({ priority: req.progress.retries > 0 });
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
        const seconds = err.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
        if (!options.onRateLimit(seconds, req, rateLimited)) throw err;
        await options.sleep(seconds * 1000);
        req.progress.retries++;
      }
    }
  };
}
