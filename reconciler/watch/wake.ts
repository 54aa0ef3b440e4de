/** Ends the wait between rounds early (`watch --listen`, on an event); an event during a round makes the next wait end at once. */
export class Wake {
  private pending = false;
  private waiter: (() => void) | undefined;

  fire(): void {
    this.pending = true;
    this.waiter?.();
  }

  /** Resolves after `ms`, when fired, or when the signal aborts, whichever comes first: true when fired (an event woke the loop). */
  wait(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    if (this.pending || signal?.aborted) {
      const fired = this.pending;
      this.pending = false;
      return Promise.resolve(fired);
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.waiter = undefined;
        const fired = this.pending;
        this.pending = false;
        resolve(fired);
      };
      const timer = setTimeout(done, ms);
      this.waiter = done;
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}
