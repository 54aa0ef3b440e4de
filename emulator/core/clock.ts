/** The emulated clock of transitions, timestamps, idempotency expiry and retries: at speed 100 a minute takes 0.6 s. */
export class EmulatedClock {
  private baseReal: number;
  private baseEmulated: number;

  constructor(
    private speed: number,
    startAt: number,
  ) {
    this.baseReal = Date.now();
    this.baseEmulated = Math.max(startAt, this.baseReal);
  }

  now(): number {
    return Math.floor(this.baseEmulated + (Date.now() - this.baseReal) * this.speed);
  }

  setSpeed(speed: number): void {
    if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError("clock speed must be a positive number");
    this.baseEmulated = this.now();
    this.baseReal = Date.now();
    this.speed = speed;
  }

  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError("advance must be a non-negative number of ms");
    this.baseEmulated += ms;
  }

  /** Real milliseconds until the emulated time `at` (0 when already past). */
  realDelayUntil(at: number): number {
    return Math.max(0, (at - this.now()) / this.speed);
  }
}

/** Emulated durations of the asynchronous operations, in ms at speed 1. */
export const DELAYS = {
  pending: 2_000,
  booting: 3_000,
  stopping: 2_000,
  deleting: 2_000,
  snapshot: 2_000,
  sshPort: 1_000,
  webhookRetry: 60_000,
} as const;
