/**
 * observe over real HTTP: each cube's domains and mappings are read as soon as its page of the
 * list is in, while the later pages are still being read (a large space's list walk is a dozen
 * round trips); order, reads and errors stay as if the walk came first.
 */
import { expect, test } from "vitest";
import { observe } from "../../engine/index.js";
import { limiter } from "../../system/concurrency.js";
import { useHarness } from "../client/support/client.js";
import { sampleCube } from "../client/support/server.js";

const harness = useHarness();

/** 3 pages of 10 cubes; `holdPages` may delay the answer of pages after the first. */
function space(holdPages: (page: number) => Promise<void> = async () => {}) {
  const all = Array.from({ length: 30 }, (_, i) => sampleCube(`c${i + 1}`, { name: `cube-${i + 1}` }));
  return async (r: { path: string; query: URLSearchParams }) => {
    if (r.path.endsWith("/cubes")) {
      const page = Number(r.query.get("page"));
      if (page > 1) await holdPages(page);
      return { body: { cubes: all.slice((page - 1) * 10, page * 10), pagination: { page, limit: 10, total: 30, totalPages: 3 } } };
    }
    if (r.path.endsWith("/domains")) return { body: { domains: [] } };
    return { body: { tcpMappings: [] } };
  };
}

async function until(condition: () => boolean, deadlineMs = 5_000): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return true;
}

test("the first page's cubes are read while later pages are still being read; the state is in list order", async () => {
  let readBeforeLaterPages = false;
  const h = await harness(
    space(async () => {
      readBeforeLaterPages ||= await until(() => h.server.received.some((r) => r.path.endsWith("/cubes/c1/domains")));
    }),
  );
  const state = await observe(h.client, { concurrency: 4 });
  expect(readBeforeLaterPages).toBe(true);
  expect(state.cubes.map((c) => c.cube.id)).toEqual(Array.from({ length: 30 }, (_, i) => `c${i + 1}`));
  // Still the minimum: 3 pages + 2 reads per cube.
  expect(h.server.received).toHaveLength(3 + 60);
});

test("each cube is handed on (onRead) as soon as its reads are in, the list once it is complete (onListed)", async () => {
  const handed: string[] = [];
  let listed: string[] = [];
  let handedBeforeLastPage = 0;
  const h = await harness(
    space(async (page) => {
      if (page === 3) await until(() => handed.length > 0);
      handedBeforeLastPage = handed.length;
    }),
  );
  const state = await observe(h.client, {
    concurrency: 4,
    onListed: (cubes) => (listed = cubes.map((c) => c.id)),
    onRead: (cube) => handed.push(cube.cube.id),
  });
  expect(handedBeforeLastPage).toBeGreaterThan(0);
  expect(listed).toEqual(state.cubes.map((c) => c.cube.id));
  expect([...handed].sort()).toEqual([...listed].sort());
});

test("a failing cube read during the walk fails observe once the walk ends (no unhandled rejection)", async () => {
  const serve = space();
  const h = await harness(async (r, i) =>
    r.path.endsWith("/cubes/c2/domains") ? { status: 400, body: { error: { code: "bad_request", message: "no" } } } : serve(r),
  );
  await expect(observe(h.client, { concurrency: 4 })).rejects.toMatchObject({ status: 400 });
});

test("a failing page fails observe", async () => {
  const serve = space();
  const h = await harness(async (r) =>
    r.path.endsWith("/cubes") && r.query.get("page") === "2"
      ? { status: 400, body: { error: { code: "bad_request", message: "no" } } }
      : serve(r),
  );
  await expect(observe(h.client, { concurrency: 1 })).rejects.toMatchObject({ status: 400 });
});

test("after stop(), the limiter starts none of the tasks still queued (a failed walk sends no more cube reads)", async () => {
  const limit = limiter(1);
  const started: number[] = [];
  let finishFirst = (): void => {};
  const first = limit(() => new Promise<void>((resolve) => ((finishFirst = resolve), started.push(1))));
  const queued = [2, 3].map((n) => limit(async () => void started.push(n)));
  limit.stop();
  finishFirst();
  await first;
  for (const task of queued) await expect(task).rejects.toThrow("stopped");
  expect(started).toEqual([1]);
});

test("the limiter starts 30,000 queued tasks in the order given, never more than its limit at once, and empties and refills its queue", async () => {
  const limit = limiter(8);
  const started: number[] = [];
  let running = 0;
  let most = 0;
  const task = (n: number) => async (): Promise<number> => {
    started.push(n);
    most = Math.max(most, ++running);
    await Promise.resolve();
    running--;
    return n;
  };
  const first = await Promise.all(Array.from({ length: 30_000 }, (_, n) => limit(task(n))));
  const again = await Promise.all([limit(task(-1)), limit(task(-2))]);
  expect(first).toEqual(Array.from({ length: 30_000 }, (_, n) => n));
  expect(again).toEqual([-1, -2]);
  expect(started.slice(0, 30_000)).toEqual(first);
  expect(most).toBe(8);
});

test("with concurrencyFor, the first 16 cube reads measure the round trip once, and the rest go at the count it answers", async () => {
  const asked: number[] = [];
  let inFlight = 0;
  let most = 0;
  const serve = space();
  const h = await harness(async (r) => {
    const sub = !r.path.endsWith("/cubes");
    if (sub) most = Math.max(most, ++inFlight);
    // Once widened, answers wait until the widened count has been in flight, so it is observable.
    if (sub && asked.length > 0) await until(() => most >= 12);
    try {
      return await serve(r);
    } finally {
      if (sub) inFlight--;
    }
  });
  const state = await observe(h.client, { concurrency: 2, concurrencyFor: (ms) => (asked.push(ms), 6) });
  expect(asked).toHaveLength(1);
  expect(asked[0]).toBeGreaterThan(0);
  expect(most).toBe(12);
  expect(state.cubes).toHaveLength(30);
});
