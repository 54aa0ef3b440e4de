import { describe, expect, test } from "vitest";
import { RateLimitedError } from "../../client/index.js";
import { useHarness } from "./support/client.js";

const harness = useHarness();
const ok = { body: { success: true } };
const tooMany = (retryAfter?: string) => ({
  status: 429,
  body: { error: "Rate limit exceeded" },
  ...(retryAfter === undefined ? {} : { headers: { "retry-after": retryAfter } }),
});

describe("429: wait for Retry-After, then resend (any method: the server did not perform it)", () => {
  test("Retry-After in seconds", async () => {
    const h = await harness((_r, i) => (i === 0 ? tooMany("7") : ok));
    await h.client.powerOff("c1"); // a POST without an Idempotency-Key is still resent after a 429
    expect(h.waits).toEqual([7000]);
    expect(h.server.received).toHaveLength(2);
    expect(h.client.stats).toMatchObject({ rateLimited: 1, retries: 1, mutations: 2 });
    expect(h.events.filter((e) => e.type === "rate_limited")).toEqual([
      { type: "rate_limited", method: "POST", path: "/spaces/s1/cubes/c1/power-off", attempt: 1, status: 429, waitMs: 7000 },
    ]);
  });

  test("Retry-After as an HTTP-date", async () => {
    const h = await harness((_r, i) => (i === 0 ? tooMany(new Date(Date.now() + 30_000).toUTCString()) : ok));
    await h.client.deleteCube("c1");
    expect(h.waits).toHaveLength(1);
    // HTTP-dates have whole-second precision.
    expect(h.waits[0]).toBeGreaterThan(28_000);
    expect(h.waits[0]).toBeLessThanOrEqual(30_000);
  });

  test("without Retry-After: as long as the client's window says one slot needs (with jitter), not a flat 60 s", async () => {
    // 10 per 60 s: one slot's share of the window (plus margin) is 6.12 s; doubled on the next 429.
    const h = await harness((_r, i) => (i < 2 ? tooMany() : ok), { rateLimit: { limit: 10, windowMs: 60_000 } });
    await h.client.setSshPort("c1", 2222);
    expect(h.waits).toHaveLength(2);
    expect(h.waits[0]).toBeGreaterThanOrEqual(6_120);
    expect(h.waits[0]).toBeLessThanOrEqual(6_120 * 1.25);
    expect(h.waits[1]).toBeGreaterThanOrEqual(12_240);
    expect(h.waits[1]).toBeLessThanOrEqual(12_240 * 1.25);
  });

  test("a 429 on a read waits at most a few seconds, whatever Retry-After says (a report never stalls)", async () => {
    const h = await harness((_r, i) => (i === 0 ? tooMany("60") : { body: { id: "c1" } }));
    await h.client.getCube("c1").catch(() => undefined);
    expect(h.waits).toEqual([5_000]);
  });

  test("gives up after maxRetries with a typed error that counts the retries", async () => {
    const h = await harness(() => tooMany("1"), { retry: { maxRetries: 2 } });
    const err = await h.client.wake("c1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ code: "rate_limited", status: 429, retries: 2, retryAfterSeconds: 1 });
    expect(String(err)).toContain("Rate limit exceeded");
    expect(h.server.received).toHaveLength(3);
  });
});
