import { describe, expect, test } from "vitest";
import { MutationPacer } from "../../client/index.js";
import { fakeClock } from "./support/clock.js";
import { useHarness } from "./support/client.js";
import { sampleCube } from "./support/server.js";

const harness = useHarness();

describe("logger events", () => {
  test("request, retry, rate_limited and paced events carry only method, path, status, attempt, waitMs", async () => {
    const replies = [
      { status: 503, body: { error: "busy" } },
      { body: { cube: sampleCube("c1") } },
      { status: 429, body: { error: "slow" }, headers: { "retry-after": "2" } },
      { body: { success: true } },
      { body: { success: true } },
    ];
    const clock = fakeClock();
    const pacer = new MutationPacer({ limit: 1, windowMs: 100, now: clock.now, sleep: clock.sleep });
    const h = await harness((_r, i) => replies[i] ?? { body: {} }, { pacer });
    await h.client.getCube("c1");
    await h.client.powerOff("c1");
    await h.client.wake("c1");
    const allowed = new Set(["type", "method", "path", "status", "attempt", "waitMs"]);
    for (const e of h.events)
      expect(
        Object.keys(e).every((k) => allowed.has(k)),
        JSON.stringify(e),
      ).toBe(true);
    expect(h.events.map((e) => `${e.type} ${e.method} ${e.status ?? "-"} #${e.attempt}`)).toEqual([
      "request GET 503 #1",
      "retry GET 503 #2",
      "request GET 200 #2",
      "request POST 429 #1",
      "rate_limited POST 429 #1",
      "paced POST - #2",
      "request POST 200 #2",
      "paced POST - #1",
      "request POST 200 #1",
    ]);
    expect(h.events.filter((e) => e.type === "paced").map((e) => e.waitMs)).toEqual([150, 150]);
    expect(JSON.stringify(h.events)).not.toContain("kro_test_key");
  });

  test("a throwing logger does not fail the request", async () => {
    const h = await harness(() => ({ body: { cube: sampleCube("c1") } }), {
      logger: () => {
        throw new Error("logger broke");
      },
    });
    expect((await h.client.getCube("c1")).id).toBe("c1");
  });
});
