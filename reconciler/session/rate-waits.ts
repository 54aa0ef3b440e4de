/**
 * Waits for the rate limit, shown on stderr as they happen: on a terminal one line counting down (erased when the wait ends), otherwise one line
 * per wait, so a CI log says why nothing happened. Pacing waits under a second go unmentioned; a 429 always is.
 */
import type { RateWait, RateWaitListener } from "../../client/light.js";
import type { RateLimit } from "./rate-limit.js";
import { formatSeconds } from "../render/values.js";
import { escapeText } from "../render/escape.js";

export interface RateWaitNotices extends RateWaitListener {
  /** What the run is doing now (e.g. "create-cube cube/web"): named as what waits. */
  activity(what: string | undefined): void;
  /** Erases a countdown still on screen. */
  close(): void;
}

export interface RateWaitNoticeOptions {
  out: NodeJS.WritableStream;
  tty: boolean;
  rateLimit: RateLimit;
  now?: () => number;
  /** How often the countdown is redrawn (ms). */
  tickMs?: number;
}

/** Pacing waits below this are not worth a line. */
export const MIN_NOTICED_WAIT_MS = 1000;
const ERASE = "\r\x1b[2K";

export function rateWaitNotices(options: RateWaitNoticeOptions): RateWaitNotices {
  const now = options.now ?? Date.now;
  let doing: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let onScreen = false;
  const erase = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    if (onScreen) options.out.write(ERASE);
    onScreen = false;
  };
  return {
    activity(what) {
      doing = what;
    },
    started(wait) {
      if (wait.reason === "pacing" && wait.waitMs < MIN_NOTICED_WAIT_MS) return;
      erase();
      const what = doing;
      if (!options.tty) {
        options.out.write(`${escapeText(describeWait(wait, what, wait.waitMs, options.rateLimit))}.\n`);
        return;
      }
      const endsAt = now() + wait.waitMs;
      const draw = (): void => {
        options.out.write(`${ERASE}${escapeText(describeWait(wait, what, Math.max(0, endsAt - now()), options.rateLimit))}…`);
        onScreen = true;
      };
      draw();
      timer = setInterval(draw, options.tickMs ?? 1000);
      timer.unref();
    },
    ended: erase,
    close: erase,
  };
}

/**
 * "Rate limit (10 mutations per 60 s): waiting 42 s before create-cube cube/web (POST /cubes)";
 * "The API answered 429 (rate limited) to POST /cubes: waiting 12 s before sending it again (create-cube cube/web)".
 */
export function describeWait(wait: RateWait, doing: string | undefined, remainingMs: number, rateLimit: RateLimit): string {
  // Rounded, not ceiled: the pacer's margin makes a 2 s window a 2.05 s wait, which is "2 s".
  const seconds = `${Math.max(1, Math.round(remainingMs / 1000))} s`;
  const request = `${wait.method} ${wait.path}`;
  if (wait.reason === "rate_limited")
    return `The API answered 429 (rate limited) to ${request}: waiting ${seconds} before sending it again${doing ? ` (${doing})` : ""}`;
  const limit = `${rateLimit.limit} ${rateLimit.limit === 1 ? "mutation" : "mutations"} per ${formatSeconds(rateLimit.windowMs / 1000)} s`;
  return `Rate limit (${limit}): waiting ${seconds} before ${doing ? `${doing} (${request})` : request}`;
}
