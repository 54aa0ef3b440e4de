/**
 * The level-based reconcile loop: every round reads desired and live state afresh, so a missed event or a crashed round costs only time. A thrown
 * error retries with backoff; a TerminalError (a bad file, a 4xx: retrying cannot fix it) waits for the regular interval.
 */
import type { Backoff } from "./backoff.js";
import type { RoundTrigger } from "./events.js";
import { sleep } from "../../system/time.js";

export interface Result {
  /** When to run the next round; the regular interval when absent. */
  requeueAfterMs?: number;
}

/** A failure that retrying soon cannot fix: logged, then the loop waits for the regular interval. */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TerminalError";
  }
}

export interface FailureInfo {
  terminal: boolean;
  retryInMs: number;
}

export interface LoopOptions {
  /** One round; `trigger` says why it runs. */
  reconcile(trigger: RoundTrigger): Promise<Result>;
  intervalMs: number;
  backoff: Backoff;
  /** Aborting ends the loop after the round under way (never in the middle of one). */
  signal: AbortSignal;
  /** One round only. */
  once: boolean;
  onFailure(error: unknown, info: FailureInfo): void;
  /** An error that ends the loop instead (e.g. a rejected key at start): runLoop throws what this returns. */
  fatal?(error: unknown): Error | undefined;
  /** The wait between rounds (default: a plain sleep); `watch --listen` ends it early on an event, and then resolves with what fired it. */
  wait?(ms: number, signal: AbortSignal): Promise<RoundTrigger | undefined | void>;
}

/** Runs rounds until the signal aborts (or once); resolves with whether the last round failed. */
export async function runLoop(options: LoopOptions): Promise<{ lastRoundFailed: boolean }> {
  let lastRoundFailed = false;
  // A round an event woke was not scheduled by the backoff: its failure does not lengthen the next wait (a burst of pushes during an
  // outage would otherwise push the retry past the outage's end).
  let woken = false;
  let trigger: RoundTrigger = "start";
  while (!options.signal.aborted) {
    let delayMs: number;
    let retrying = false;
    try {
      const result = await options.reconcile(trigger);
      options.backoff.reset();
      lastRoundFailed = false;
      delayMs = result.requeueAfterMs ?? options.intervalMs;
    } catch (error) {
      const fatal = options.fatal?.(error);
      if (fatal !== undefined) throw fatal;
      lastRoundFailed = true;
      const terminal = error instanceof TerminalError;
      delayMs = terminal ? options.intervalMs : options.backoff.next({ count: !woken });
      retrying = !terminal;
      options.onFailure(error, { terminal, retryInMs: delayMs });
    }
    if (options.once) break;
    const fired = await (options.wait ? options.wait(delayMs, options.signal) : sleep(delayMs, options.signal));
    woken = typeof fired === "string";
    trigger = typeof fired === "string" ? fired : retrying ? "retry" : "interval";
  }
  return { lastRoundFailed };
}
