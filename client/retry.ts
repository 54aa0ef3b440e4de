/**
 * Retries of 5xx answers and network failures (429s are the throttle's). A read is always retried, a mutation only with an
 * Idempotency-Key (else a lost answer leaves unknown whether it was performed). Backoff is full jitter, random(0,
 * min(maxDelayMs, baseDelayMs * 2^n)); a network failure that resending cannot pass (network-failure.ts) is not resent.
 */
import { type CubeApiError, NetworkError, ServerError, TimeoutError } from "./errors.js";
import { isMutating, type ApiRequest, type Send } from "./transport.js";

export interface RetryOptions {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  random?: () => number;
  /** Called before each resend with the error that caused it and the delay. */
  onRetry?: (req: ApiRequest, error: CubeApiError, delayMs: number) => void;
}

export const DEFAULT_RETRY = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 30_000 } as const;

const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);

export function isRetryableFailure(err: unknown): err is CubeApiError {
  if (err instanceof NetworkError || err instanceof TimeoutError) return true;
  return err instanceof ServerError && err.status !== undefined && RETRYABLE_STATUSES.has(err.status);
}

/** A network failure may allow fewer resends than the policy (a refused certificate: none). */
function retryLimit(err: CubeApiError, maxRetries: number): number {
  return err instanceof NetworkError && err.retryLimit !== undefined ? Math.min(maxRetries, err.retryLimit) : maxRetries;
}

export function mayResend(req: ApiRequest): boolean {
  return !isMutating(req.method) || req.idempotencyKey !== undefined;
}

export function backoffDelayMs(retry: number, options: Pick<RetryOptions, "baseDelayMs" | "maxDelayMs" | "random">): number {
  const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.floor((options.random ?? Math.random)() * cap);
}

export function withRetry(next: Send, options: RetryOptions): Send {
  return async (req) => {
    for (let retry = 0; ; retry++) {
      try {
        return await next(req);
      } catch (err) {
        if (!isRetryableFailure(err) || !mayResend(req) || retry >= retryLimit(err, options.maxRetries)) throw err;
        const delayMs = backoffDelayMs(retry, options);
        // A call with a deadline is not resent past it (a bounded read, e.g. the prices).
        if (req.deadline !== undefined && Date.now() + delayMs >= req.deadline) throw err;
        options.onRetry?.(req, err, delayMs);
        await options.sleep(delayMs);
        req.progress.retries++;
      }
    }
  };
}
