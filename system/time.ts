/** Waiting, and the durations and rates that people type (flags, stack config, environment). */

/** A setting that does not parse; `code` makes the CLI print it as one line. */
export class InvalidValueError extends Error {
  readonly code = "invalid_option";
}

/** Resolves after `ms`, or at once when the signal aborts (stopping is not an error). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

const blocker = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the thread: only for waits of a few milliseconds inside a synchronous critical section. */
export function sleepSync(ms: number): void {
  Atomics.wait(blocker, 0, 0, ms);
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
type Unit = keyof typeof UNIT_MS;
const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/;

/** "500ms", "5s", "10m", "1h" (decimals allowed) in ms; a bare number is in `bareUnit`: seconds unless the setting took another unit before. */
export function parseDuration(text: string, source: string, bareUnit: Unit = "s"): number {
  const ms = durationMs(text, bareUnit);
  if (ms === undefined || !(ms > 0)) {
    const bare = ` or a number of ${bareUnit === "s" ? "seconds" : bareUnit}`;
    throw new InvalidValueError(
      `invalid option ${source}: expected a duration such as 500ms, 5s, 10m or 1h${bare} (got ${JSON.stringify(text)})`,
    );
  }
  return ms;
}

/** "30s" → 30000; undefined when `text` is no duration (a bare number is one only with a `bareUnit`). */
export function durationMs(text: string, bareUnit?: Unit): number | undefined {
  const match = DURATION.exec(text);
  const unit = (match?.[2] as Unit | undefined) ?? bareUnit;
  return match && unit ? Math.round(Number(match[1]) * UNIT_MS[unit]) : undefined;
}

export interface Rate {
  limit: number;
  windowMs: number;
}

/** "N/SECONDS" or "N/DURATION": "10/60" and "10/60s" and "10/1m" are the API's 10 per minute. */
export function parseRate(text: string, source: string): Rate {
  const match = /^\s*(\d+)\s*\/(.*)$/.exec(text);
  const limit = Number(match?.[1]);
  const windowMs = match ? durationMs(match[2] ?? "", "s") : undefined;
  if (!match || !(limit >= 1) || windowMs === undefined || !(windowMs > 0)) {
    throw new InvalidValueError(`${source} must look like N/SECONDS with N ≥ 1 and SECONDS > 0, e.g. 10/60 or 10/1m (got "${text}")`);
  }
  return { limit, windowMs };
}

/** "1.5s", "10m", "250ms": the shortest readable spelling, for messages. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${trim(ms / 1000)}s`;
  if (ms < 3_600_000) return `${trim(ms / 60_000)}m`;
  return `${trim(ms / 3_600_000)}h`;
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
