import { describe, expect, test } from "vitest";
import { ServerError } from "../../client/index.js";
import { useHarness } from "./support/client.js";

const harness = useHarness();
const unavailable = { status: 503, body: { error: "No ports available" } };

describe("5xx and network failures of a mutation without an Idempotency-Key are surfaced, not resent", () => {
  test("POST accepting a backup share answered 503 is sent once", async () => {
    const h = await harness(() => unavailable);
    const err = await h.client.acceptBackupShare("shr_1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ code: "server_error", status: 503, method: "POST", retries: 0 });
    expect(String(err)).toContain("No ports available");
    expect(h.server.received).toHaveLength(1);
  });

  test("DELETE answered 500 is sent once", async () => {
    const h = await harness(() => ({ status: 500, body: { error: "boom" } }));
    await expect(h.client.deleteCube("c1")).rejects.toMatchObject({ code: "server_error", status: 500 });
    expect(h.server.received).toHaveLength(1);
  });

  test("a connection reset on PATCH is a network_error, sent once", async () => {
    const h = await harness(() => "reset");
    await expect(h.client.setTerminationProtection("c1", true)).rejects.toMatchObject({ code: "network_error" });
    expect(h.server.received).toHaveLength(1);
  });

  test("a webhook create (no Idempotency-Key on that endpoint) is not resent after 502", async () => {
    const h = await harness(() => ({ status: 502, body: { error: "bad gateway" } }));
    await expect(h.client.createWebhook({ url: "https://example.com/hook", events: ["cube.created"] })).rejects.toMatchObject({
      status: 502,
    });
    expect(h.server.received).toHaveLength(1);
  });
});

describe("reads are retried on 5xx and network failures", () => {
  test("GET: 503, reset, 504, then 200", async () => {
    const cube = {
      id: "c1",
      name: "a",
      state: "running",
      publicIpv4: null,
      image: "i",
      sshUser: "u",
      resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
      terminationProtection: false,
      terminationProtectionChangedAt: null,
      terminationProtectionChangedBy: null,
    };
    const h = await harness((_r, i) => [unavailable, "reset" as const, { status: 504, body: { error: "t" } }][i] ?? { body: { cube } });
    expect((await h.client.getCube("c1")).id).toBe("c1");
    expect(h.server.received).toHaveLength(4);
    expect(h.client.stats).toMatchObject({ reads: 4, retries: 3 });
    // Full jitter: each wait is within [0, min(max, base * 2^n)).
    expect(h.waits).toHaveLength(3);
    h.waits.forEach((w, n) => expect(w).toBeLessThan(500 * 2 ** n));
    expect(h.events.filter((e) => e.type === "retry").map((e) => e.attempt)).toEqual([2, 3, 4]);
  });

  test("never retries 400, 401, 403, 404, 409, 422", async () => {
    for (const status of [400, 401, 403, 404, 409, 422]) {
      const h = await harness(() => ({ status, body: { error: `status ${status}` } }));
      await expect(h.client.getCube("c1")).rejects.toMatchObject({ status, retries: 0 });
      expect(h.server.received).toHaveLength(1);
    }
  });

  test("a read that keeps failing stops after maxRetries", async () => {
    const h = await harness(() => unavailable, { retry: { maxRetries: 2, baseDelayMs: 10 } });
    await expect(h.client.listRegions()).rejects.toMatchObject({ code: "server_error", retries: 2 });
    expect(h.server.received).toHaveLength(3);
  });
});
