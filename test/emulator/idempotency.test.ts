import { describe, expect } from "vitest";
import { cubeBody, test } from "../support/emulator.js";

describe("Idempotency-Key", () => {
  test("§8 rule 2: a repeat returns the original status and body with Idempotency-Replayed: true, without a second cube", async ({
    api,
  }) => {
    const headers = { "idempotency-key": "create-web-1" };
    const first = await api.call("POST", "/cubes", cubeBody(), headers);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotency-replayed")).toBeNull();
    const second = await api.call("POST", "/cubes", cubeBody(), headers);
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotency-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect((await api.call("GET", "/cubes")).body.pagination.total).toBe(1);
  });

  test("§8: a key longer than 255 characters is a 400; 255 is accepted", async ({ api }) => {
    expect((await api.call("POST", "/cubes", cubeBody(), { "idempotency-key": "k".repeat(256) })).status).toBe(400);
    expect((await api.call("POST", "/cubes", cubeBody(), { "idempotency-key": "k".repeat(255) })).status).toBe(201);
  });

  test("§8: keys are scoped per Space: the same key in another space performs its own operation", async ({ api, emu }) => {
    const other = emu.admin.createSpace();
    const otherApi = api.as(other.ownerKey, other.spaceId);
    const mine = await api.call("POST", "/cubes", cubeBody(), { "idempotency-key": "shared" });
    const theirs = await otherApi.call("POST", "/cubes", cubeBody(), { "idempotency-key": "shared" });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotency-replayed")).toBeNull();
    expect(theirs.body.cube.id).not.toBe(mine.body.cube.id);
    expect((await otherApi.call("GET", "/cubes")).body.pagination.total).toBe(1);
  });

  test("§8: the key lives 24 h of emulated time; after that the operation runs again", async ({ api, emu }) => {
    const headers = { "idempotency-key": "daily" };
    const cube = await api.createCube();
    const first = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 80 }, headers);
    await api.call("DELETE", `/cubes/${cube.id}/tcp-mappings/${first.body.tcpMapping.id}`);
    expect((await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 80 }, headers)).headers.get("idempotency-replayed")).toBe(
      "true",
    );
    emu.admin.advanceClock(24 * 3600 * 1000);
    const later = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 80 }, headers);
    expect(later.status).toBe(201);
    expect(later.headers.get("idempotency-replayed")).toBeNull();
    expect(later.body.tcpMapping.id).not.toBe(first.body.tcpMapping.id);
  });

  test("a refused request is not stored: after a 409 the same key is evaluated again", async ({ api }) => {
    const cube = await api.createCube();
    await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 80 });
    const headers = { "idempotency-key": "retry-me" };
    expect((await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 80 }, headers)).status).toBe(409);
    expect((await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 81 }, headers)).status).toBe(201);
  });

  test("reusing a key with a different body is a 422 and performs nothing", async ({ api }) => {
    await api.call("POST", "/cubes", cubeBody({ name: "one" }), { "idempotency-key": "k1" });
    const other = await api.call("POST", "/cubes", cubeBody({ name: "two" }), { "idempotency-key": "k1" });
    expect(other.status).toBe(422);
    expect((await api.call("GET", "/cubes")).body.pagination.total).toBe(1);
  });

  test("replays are logged as replayed in the request log (key value logged, API key never)", async ({ api, emu }) => {
    await api.call("POST", "/cubes", cubeBody(), { "idempotency-key": "logged" });
    await api.call("POST", "/cubes", cubeBody(), { "idempotency-key": "logged" });
    const log = emu.admin.requests().filter((r) => r.method === "POST");
    expect(log.map((r) => [r.status, r.replayed, r.idempotencyKey, r.authenticated])).toEqual([
      [201, false, "logged", true],
      [201, true, "logged", true],
    ]);
    expect(JSON.stringify(emu.admin.requests())).not.toContain(emu.apiKey);
  });
});
