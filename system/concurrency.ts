/** Bounded concurrency (a limiter, a pool of workers) and the sliding-window log that paces starts: one of each for every layer. */
import { Queue } from "./queue.js";

/** Runs tasks, at most `concurrency` at once, in the order given; stop(): queued ones reject; resize(): a new limit, at once. */
export type Limiter = (<R>(task: () => Promise<R>) => Promise<R>) & { stop(): void; resize(concurrency: number): void };

/** The waiting tasks are a Queue: Array#shift copies a long list whole (10,000 cubes waiting: ~7 ms a plan; 20,000: ~0.4 s). */
export function limiter(concurrency: number): Limiter {
  const queue = new Queue<() => void>();
  let running = 0;
  let stopped = false;
  const next = (): void => {
    const start = queue.first();
    queue.shift();
    start?.();
  };
  const run = <R>(task: () => Promise<R>): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      const start = (): void => {
        if (stopped) return reject(new Error("stopped"));
        running++;
        task()
          .then(resolve, reject)
          .finally(() => {
            running--;
            next();
          });
      };
      if (running < concurrency) start();
      else queue.push(start);
    });
  const stop = (): void => {
    stopped = true;
    while (queue.size > 0) next();
  };
  const resize = (limit: number): void => {
    concurrency = Math.max(1, limit);
    while (running < concurrency && queue.size > 0) next();
  };
  return Object.assign(run, { stop, resize });
}

export async function mapBounded<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const limit = limiter(Math.max(1, concurrency));
  return Promise.all(items.map((item) => limit(() => work(item))));
}

/** `concurrency` workers take the items in order until none is left or `stopped()` says so. */
export async function drainPool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
  stopped = () => false,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < items.length && !stopped(); index = next++) await work(items[index] as T, index);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}

/** A start recorded in a window at `at` (a caller may re-date it, e.g. when its request completed). */
export type Grant = { id: string; at: number };
/** A start granted (its id), or the times of the starts that fill the window. */
export type Taken = { id: string } | { times: number[] };

/** A sliding-window log, not a token bucket (which can start limit+1 in a window): a start only while fewer than `limit` are after `cutoff`. */
export function takeFrom(
  grants: readonly Grant[],
  now: number,
  cutoff: number,
  limit: number,
  newId: () => string,
): { grants: Grant[]; result: Taken } {
  const live = grants.filter((g) => g.at > cutoff);
  if (live.length >= limit) return { grants: live, result: { times: timesAfter(live, cutoff) } };
  const id = newId();
  return { grants: [...live, { id, at: now }], result: { id } };
}

/** The times of the starts after `cutoff`, oldest first. */
export function timesAfter(grants: readonly Grant[], cutoff: number): number[] {
  return grants
    .filter((g) => g.at > cutoff)
    .map((g) => g.at)
    .sort((a, b) => a - b);
}
