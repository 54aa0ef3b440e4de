/**
 * Polls a condition until it holds or a deadline passes: the way tests synchronise with
 * asynchronous behaviour instead of sleeping. `fn` may return a value (truthy = done) or
 * throw (e.g. a failing expect); the last failure is reported at the deadline.
 */
export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  message?: string;
}

export async function waitFor<T>(fn: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 5_000, intervalMs = 10 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : "";
      throw new Error(`${options.message ?? "condition not met"} within ${timeoutMs} ms${reason}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
