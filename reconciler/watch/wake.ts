import type { RoundTrigger } from "./events.js";

/** Ends the wait between rounds early (`watch --listen`, on an event); an event during a round makes the next wait end at once. */
export class Wake {
  private pending: RoundTrigger | undefined;
  private waiter: (() => void) | undefined;

  fire(reason: RoundTrigger = "service-event"): void {
    this.pending = reason;
    this.waiter?.();
  }

  /** Resolves after `ms`, when fired, or when the signal aborts, whichever comes first: what fired it (undefined: not fired). */
  wait(ms: number, signal: AbortSignal | undefined): Promise<RoundTrigger | undefined> {
    if (this.pending !== undefined || signal?.aborted) return Promise.resolve(this.take());
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.waiter = undefined;
        resolve(this.take());
      };
      const timer = setTimeout(done, ms);
      this.waiter = done;
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  private take(): RoundTrigger | undefined {
    const fired = this.pending;
    this.pending = undefined;
    return fired;
  }
}
