/**
 * Sliding-window-log limit on mutating requests, per client IP, in real time (clients pace
 * themselves by the wall clock, whatever the emulated clock speed).
 */
import type { RateLimitSetting } from "./index.js";

export const DEFAULT_RATE_LIMIT: RateLimitSetting = { limit: 10, windowMs: 60_000 };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; message: string };

export class RateLimiter {
  private readonly log = new Map<string, number[]>();

  constructor(
    private setting: RateLimitSetting = DEFAULT_RATE_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  configure(setting: RateLimitSetting): void {
    if (!(Number.isInteger(setting.limit) && setting.limit >= 1)) throw new RangeError("rate limit must be an integer ≥ 1");
    if (!(setting.windowMs > 0)) throw new RangeError("rate-limit windowMs must be positive");
    this.setting = { ...setting };
    this.log.clear();
  }

  /** Counts the request when allowed; a refused request is not counted. */
  check(clientIp: string): RateDecision {
    const now = this.now();
    const { limit, windowMs } = this.setting;
    const recent = (this.log.get(clientIp) ?? []).filter((t) => t > now - windowMs);
    if (recent.length < limit) {
      recent.push(now);
      this.log.set(clientIp, recent);
      return { allowed: true };
    }
    this.log.set(clientIp, recent);
    const oldest = recent[0] ?? now;
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
    const message = `Rate limit exceeded: ${limit} mutating requests per ${windowMs / 1000} seconds. Retry after ${retryAfterSeconds} seconds.`;
    return { allowed: false, retryAfterSeconds, message };
  }
}
