/** Exponential backoff for failed rounds up to a cap, each delay drawn from [d/2, d] so that watchers failing together do not retry in step. */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** In [0, 1); injectable for tests. */
  random?: () => number;
}

export class Backoff {
  private failures = 0;
  constructor(private readonly options: BackoffOptions) {}

  /**
   * The delay before the next try after one more failure. `count: false` (a round an event woke, not one the backoff scheduled): the same
   * delay as the last failure's, without doubling it.
   */
  next(options: { count?: boolean } = {}): number {
    const count = options.count ?? true;
    const exponential = this.options.initialMs * 2 ** Math.min(count ? this.failures : Math.max(0, this.failures - 1), 30);
    if (count) this.failures++;
    const ceiling = Math.min(this.options.maxMs, exponential);
    const random = this.options.random ?? Math.random;
    return Math.round(ceiling / 2 + random() * (ceiling / 2));
  }

  reset(): void {
    this.failures = 0;
  }
}
