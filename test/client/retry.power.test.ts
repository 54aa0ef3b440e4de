/** Issue 31 item 13: a power request carries an Idempotency-Key minted per call, so a 5xx is resent with the same key (and performed once). */
import { describe, expect, test } from "vitest";
import { useHarness } from "./support/client.js";

const harness = useHarness();

describe("power requests are resent after a 5xx, under one Idempotency-Key", () => {
  test.each(["powerOff", "wake", "restart"] as const)("%s: 503, 502, then 200", async (call) => {
    const h = await harness(
      (_r, i) =>
        [
          { status: 503, body: { error: "busy" } },
          { status: 502, body: { error: "bad gateway" } },
        ][i] ?? { body: { success: true } },
    );
    await h.client[call]("c1");
    expect(h.server.received).toHaveLength(3);
    const keys = h.server.received.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^cf-/);
    expect(new Set(keys).size).toBe(1);
  });

  test("two calls are two operations: each mints its own key", async () => {
    const h = await harness(() => ({ body: { success: true } }));
    await h.client.powerOff("c1");
    await h.client.powerOff("c1");
    const [first, second] = h.server.received.map((r) => r.headers["idempotency-key"]);
    expect(first).not.toBe(second);
  });
});
