import { expect, test } from "vitest";
import { readPaced, type PaceClock } from "../../reconciler/report/dns-reads.js";

/** A clock that only moves when something sleeps (the earliest sleeper wakes first). */
function fakeClock(): PaceClock & { t: number } {
  const sleepers: { at: number; wake: () => void }[] = [];
  const clock = {
    t: 0,
    now: () => clock.t,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        sleepers.push({ at: clock.t + ms, wake: resolve });
        sleepers.sort((a, b) => a.at - b.at);
        // Let every other worker reach its own sleep before time moves.
        setImmediate(() => {
          const next = sleepers.shift();
          if (!next) return;
          clock.t = Math.max(clock.t, next.at);
          next.wake();
        });
      }),
  };
  return clock;
}

test("record views are read with bounded concurrency and at most N started per window, answers in order", async () => {
  const clock = fakeClock();
  const starts: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const items = Array.from({ length: 11 }, (_, i) => i);
  const results = await readPaced(
    items,
    { concurrency: 3, rate: { limit: 4, windowMs: 1_000 } },
    async (i) => {
      starts.push(clock.now());
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await clock.sleep(50 + (i % 3) * 100);
      inFlight--;
      return i * 10;
    },
    clock,
  );
  expect(results).toEqual(items.map((i) => i * 10));
  expect(maxInFlight).toBe(3);
  for (const start of starts) expect(starts.filter((s) => s >= start && s < start + 1_000).length).toBeLessThanOrEqual(4);
  // 11 reads at 4 per second: the last starts in the third window, not before.
  expect(Math.max(...starts)).toBeGreaterThanOrEqual(2_000);
});
