import { describe, expect, test } from "vitest";
import { InvalidArgumentError, newIdempotencyKey } from "../../client/index.js";
import { useHarness } from "./support/client.js";
import { CREATE_BODY, sampleApiDomain, sampleApiTcpMapping, sampleCube, sampleSnapshot } from "./support/server.js";

const harness = useHarness();

describe("creates carry an Idempotency-Key and are resent with the same key", () => {
  test("createCube: 503, reset, then 201 — three sends, one key", async () => {
    const h = await harness((_r, i) =>
      i === 0 ? { status: 503, body: { error: "busy" } } : i === 1 ? "reset" : { status: 201, body: { cube: sampleCube("c1") } },
    );
    const key = newIdempotencyKey();
    const cube = await h.client.createCube(CREATE_BODY, { idempotencyKey: key });
    expect(cube.id).toBe("c1");
    expect(h.server.received.map((r) => r.headers["idempotency-key"])).toEqual([key, key, key]);
    expect(h.server.received.map((r) => r.body)).toEqual([CREATE_BODY, CREATE_BODY, CREATE_BODY]);
    expect(h.client.stats).toMatchObject({ mutations: 3, retries: 2 });
  });

  test("each create method sends the header", async () => {
    const h = await harness((r) => ({
      status: 201,
      body: r.path.endsWith("/tcp-mappings")
        ? { tcpMapping: sampleApiTcpMapping() }
        : r.path.endsWith("/snapshots")
          ? { snapshot: sampleSnapshot() }
          : { domain: sampleApiDomain({ domain: "a.example.com" }), records: [] },
    }));
    await h.client.createTcpMapping("c1", { cubePort: 80, udp: true, allow: [] }, { idempotencyKey: "k-tcp" });
    await h.client.createSnapshot("c1", { name: "s" }, { idempotencyKey: "k-snap" });
    await h.client.attachDomain("c1", { hostname: "a.example.com", port: 80 }, { idempotencyKey: "k-dom" });
    expect(h.server.received.map((r) => r.headers["idempotency-key"])).toEqual(["k-tcp", "k-snap", "k-dom"]);
  });

  test("a delete sends no Idempotency-Key; a snapshot restore sends the key it is given, else one of its own", async () => {
    const h = await harness(() => ({ body: { success: true } }));
    await h.client.deleteCube("c1");
    await h.client.restoreSnapshot("c1", "snap_1", { idempotencyKey: "k-restore" });
    await h.client.restoreSnapshot("c1", "snap_1");
    const keys = h.server.received.map((r) => r.headers["idempotency-key"]);
    expect(keys.slice(0, 2)).toEqual([undefined, "k-restore"]);
    expect(keys[2]).toMatch(/^cf-[0-9a-f-]{36}$/);
  });

  test("a key over 255 characters is refused before anything is sent", async () => {
    const h = await harness(() => ({ status: 201, body: { cube: sampleCube("c1") } }));
    await expect(h.client.createCube(CREATE_BODY, { idempotencyKey: "k".repeat(256) })).rejects.toBeInstanceOf(InvalidArgumentError);
    await h.client.createCube(CREATE_BODY, { idempotencyKey: "k".repeat(255) });
    expect(h.server.received).toHaveLength(1);
  });

  test("newIdempotencyKey mints distinct, prefixed keys", () => {
    const a = newIdempotencyKey();
    expect(a).toMatch(/^cf-[0-9a-f-]{36}$/);
    expect(newIdempotencyKey("apply-")).toMatch(/^apply-/);
    expect(newIdempotencyKey()).not.toBe(a);
  });
});
