import { afterEach, describe, expect, test } from "vitest";
import { createClient, MutationPacer } from "../../client/index.js";
import { fakeClock } from "./support/clock.js";
import { startTestServer, type TestServer } from "./support/server.js";

async function grantTimes(pacer: MutationPacer, clock: { now(): number }, n: number): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(Array.from({ length: n }, () => pacer.acquire().then(() => times.push(clock.now()))));
  return times;
}

function maxInAnyWindow(times: number[], windowMs: number): number {
  return Math.max(...times.map((start) => times.filter((t) => t >= start && t < start + windowMs).length));
}

describe("MutationPacer (sliding-window log)", () => {
  test("never grants more than `limit` in any window, unlike a refilling token bucket", async () => {
    const clock = fakeClock();
    const pacer = new MutationPacer({ limit: 10, windowMs: 60_000, now: clock.now, sleep: clock.sleep });
    const times = await grantTimes(pacer, clock, 25);
    expect(maxInAnyWindow(times, 60_000)).toBe(10);
    // 10 at once, then the next 10 one window (plus the 1.2 s margin) later, and so on.
    expect(times.slice(0, 10).every((t) => t === 0)).toBe(true);
    expect(times[10]).toBe(61_200);
    expect(times[20]).toBe(122_400);
  });

  test("the margin is 2% of the window, at least 50 ms", () => {
    expect(new MutationPacer({ limit: 1, windowMs: 60_000 }).marginMs).toBe(1200);
    expect(new MutationPacer({ limit: 1, windowMs: 300 }).marginMs).toBe(50);
  });

  test("serves waiters in FIFO order, and a retry (priority) jumps the queue", async () => {
    const clock = fakeClock();
    const pacer = new MutationPacer({ limit: 1, windowMs: 1000, now: clock.now, sleep: clock.sleep });
    const order: string[] = [];
    const first = pacer.acquire().then(() => order.push("a"));
    const b = pacer.acquire().then(() => order.push("b"));
    const c = pacer.acquire().then(() => order.push("c"));
    const retry = pacer.acquire({ priority: true }).then(() => order.push("retry"));
    await Promise.all([first, b, c, retry]);
    expect(order).toEqual(["a", "retry", "b", "c"]);
  });

  test("estimates how long N mutations take, counting history and the queue", async () => {
    const clock = fakeClock();
    const pacer = new MutationPacer({ limit: 10, windowMs: 60_000, now: clock.now, sleep: clock.sleep });
    expect(pacer.estimateDurationMs(10)).toBe(0);
    expect(pacer.estimateDurationMs(11)).toBe(61_200);
    expect(pacer.estimateDurationMs(30)).toBe(122_400);
    expect(MutationPacer.estimateDurationMs(30, { limit: 10, windowMs: 60_000 })).toBe(122_400);
    await grantTimes(pacer, clock, 10);
    clock.advance(1_200);
    expect(pacer.waitingMs()).toBe(60_000);
  });
});

describe("pacing over real HTTP", () => {
  test("a slot is dated from when its request completed, not when it was granted", async () => {
    const clock = fakeClock();
    const pacer = new MutationPacer({ limit: 1, windowMs: 1000, marginMs: 0, now: clock.now, sleep: clock.sleep });
    const ticket = await pacer.acquire();
    clock.advance(400); // the request took 400 ms to reach the server and come back
    ticket.done();
    expect(pacer.waitingMs()).toBe(1000);
  });

  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  // A window of a second, not less: on a loaded machine one request can take a few hundred ms
  // from the client's socket to the server's handler, and the server counts on arrival.
  test("3 per second: the server never receives more than 3 mutations in any second", async () => {
    server = await startTestServer(() => ({ body: { success: true } }));
    const client = createClient({ baseUrl: server.url, apiKey: "kro_test", spaceId: "s1", rateLimit: { limit: 3, windowMs: 1000 } });
    try {
      await Promise.all([
        ...Array.from({ length: 7 }, (_, i) => client.powerOff(`c${i}`)),
        client.getCube("c0").catch(() => undefined), // reads are not paced
      ]);
    } finally {
      await client.close();
    }
    const mutations = server.received.filter((r) => r.method === "POST").map((r) => r.at);
    expect(mutations).toHaveLength(7);
    expect(maxInAnyWindow(mutations, 1000), mutations.map((t) => Math.round(t - mutations[0]!)).join(",")).toBe(3);
    expect(client.stats).toMatchObject({ mutations: 7, reads: 1, rateLimited: 0 });
  });

  test("a pacer passed to two clients paces them together", async () => {
    server = await startTestServer(() => ({ body: { success: true } }));
    const pacer = new MutationPacer({ limit: 2, windowMs: 1000 });
    const a = createClient({ baseUrl: server.url, apiKey: "kro_a", spaceId: "s1", pacer });
    const b = createClient({ baseUrl: server.url, apiKey: "kro_b", spaceId: "s1", pacer });
    try {
      await Promise.all([a.wake("c1"), a.wake("c2"), b.wake("c3"), b.wake("c4"), a.restart("c5")]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const times = server.received.map((r) => r.at);
    expect(times).toHaveLength(5);
    expect(maxInAnyWindow(times, 1000)).toBe(2);
    expect(a.pacer).toBe(b.pacer);
  });
});
