/** The loop's retry policy, in process (no child needed): what a user sees as "retrying in …". */
import { expect, test } from "vitest";
import { Backoff } from "../../reconciler/watch/backoff.js";
import { runLoop, TerminalError, type FailureInfo } from "../../reconciler/watch/loop.js";

test("backoff doubles per failure within [d/2, d], is capped, and starts over after reset", () => {
  const low = new Backoff({ initialMs: 100, maxMs: 1000, random: () => 0 });
  const high = new Backoff({ initialMs: 100, maxMs: 1000, random: () => 0.999999 });
  const take = (b: Backoff, n: number) => Array.from({ length: n }, () => b.next());
  expect(take(low, 6)).toEqual([50, 100, 200, 400, 500, 500]);
  expect(take(high, 6)).toEqual([100, 200, 400, 800, 1000, 1000]);
  low.reset();
  expect(low.next()).toBe(50);
});

test("the loop backs off on errors, waits the interval after a terminal error, resets on success, and stops when aborted", async () => {
  const controller = new AbortController();
  const outcomes: (() => void)[] = [
    () => {
      throw new Error("network down");
    },
    () => {
      throw new Error("still down");
    },
    () => undefined,
    () => {
      throw new Error("down again");
    },
    () => {
      throw new TerminalError("bad file");
    },
    () => controller.abort(),
  ];
  const failures: FailureInfo[] = [];
  let rounds = 0;
  const result = await runLoop({
    reconcile: async () => {
      outcomes[rounds++]?.();
      return {};
    },
    intervalMs: 7,
    backoff: new Backoff({ initialMs: 2, maxMs: 100, random: () => 0.999999 }),
    signal: controller.signal,
    once: false,
    onFailure: (_error, info) => failures.push(info),
  });
  expect(rounds).toBe(6);
  expect(failures).toEqual([
    { terminal: false, retryInMs: 2 },
    { terminal: false, retryInMs: 4 },
    { terminal: false, retryInMs: 2 },
    { terminal: true, retryInMs: 7 },
  ]);
  expect(result.lastRoundFailed).toBe(false);
});

test("issue 31 item 8: a failed round that an event woke keeps the backoff where it was; the next scheduled failure doubles it", async () => {
  const controller = new AbortController();
  const failures: FailureInfo[] = [];
  let rounds = 0;
  // Rounds 3 and 4 are woken by events (the wait before them resolves with what fired it), the others by the timer.
  const wokenWaits = [false, true, true, false, false];
  let waits = 0;
  await runLoop({
    reconcile: async () => {
      if (++rounds === 6) controller.abort();
      else throw new Error("git is down");
      return {};
    },
    intervalMs: 1000,
    backoff: new Backoff({ initialMs: 10, maxMs: 1000, random: () => 0.999999 }),
    signal: controller.signal,
    once: false,
    wait: async () => (wokenWaits[waits++] === true ? "service-event" : undefined),
    onFailure: (_error, info) => failures.push(info),
  });
  expect(failures.map((f) => f.retryInMs)).toEqual([10, 20, 20, 20, 40]);
});

test("each round is told why it runs: the first, a retry after a failure, an event that woke the loop, the interval", async () => {
  const controller = new AbortController();
  const triggers: string[] = [];
  const fired = [undefined, "push", undefined, undefined] as const;
  let waits = 0;
  await runLoop({
    reconcile: async (trigger) => {
      triggers.push(trigger);
      if (triggers.length === 1) throw new Error("the API is down");
      if (triggers.length === 5) controller.abort();
      return {};
    },
    intervalMs: 1000,
    backoff: new Backoff({ initialMs: 10, maxMs: 1000 }),
    signal: controller.signal,
    once: false,
    wait: async () => fired[waits++],
    onFailure: () => undefined,
  });
  expect(triggers).toEqual(["start", "retry", "push", "interval", "interval"]);
});
