/** Sliding-window limit on mutating requests per client IP, in real time: clients pace themselves by the wall clock. */
import type { RateLimitSetting } from "../types.js";
import { Queue } from "../../system/queue.js";

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; message: string };

export class RateLimiter {
  /** Per client, the times of its allowed requests, oldest first; expired ones leave from the front. */
  private readonly log = new Map<string, Queue<number>>();

  private setting: RateLimitSetting = { limit: 10, windowMs: 60_000 };

  configure(setting: RateLimitSetting): void {
    if (!(Number.isInteger(setting.limit) && setting.limit >= 1)) throw new RangeError("rate limit must be an integer ≥ 1");
    if (!(setting.windowMs > 0)) throw new RangeError("rate-limit windowMs must be positive");
    this.setting = { ...setting };
    this.log.clear();
  }

  /** Counts the request when allowed; a refused request is not counted. O(1) amortized. */
  check(clientIp: string): RateDecision {
    const now = Date.now();
    const { limit, windowMs } = this.setting;
    let recent = this.log.get(clientIp);
    if (!recent) this.log.set(clientIp, (recent = new Queue()));
    while ((recent.first() ?? Infinity) <= now - windowMs) recent.shift();
    if (recent.size < limit) {
      recent.push(now);
      return { allowed: true };
    }
    const oldest = recent.first() ?? now;
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
    const message = `Rate limit exceeded: ${limit} mutating requests per ${windowMs / 1000} seconds. Retry after ${retryAfterSeconds} seconds.`;
    return { allowed: false, retryAfterSeconds, message };
  }
}
