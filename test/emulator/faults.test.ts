import { describe, expect } from "vitest";
import { cubeBody, test } from "../support/emulator.js";

/** The admin surface answers POSTs only with a JSON content type. */
const JSON_TYPE = { "content-type": "application/json" };

describe("fault injection", () => {
  test("status: answers the given status with {error} and performs nothing", async ({ api, emu }) => {
    emu.admin.injectFault({ kind: "status", status: 503, method: "POST", path: "/cubes$" });
    const faulted = await api.call("POST", "/cubes", cubeBody());
    expect(faulted.status).toBe(503);
    expect(typeof faulted.body.error).toBe("string");
    expect((await api.call("GET", "/cubes")).body.pagination.total).toBe(0);
    expect((await api.call("POST", "/cubes", cubeBody())).status).toBe(201);
  });

  test("reset: the connection is destroyed without a response and nothing is performed", async ({ api, emu }) => {
    emu.admin.injectFault({ kind: "reset", method: "POST" });
    await expect(api.call("POST", "/cubes", cubeBody())).rejects.toThrow();
    expect((await api.call("GET", "/cubes")).body.pagination.total).toBe(0);
  });

  test("drop-after-commit: the operation and its idempotency record are stored, then the response is lost", async ({ api, emu }) => {
    emu.admin.injectFault({ kind: "drop-after-commit", method: "POST", path: "/cubes$" });
    const headers = { "idempotency-key": "lost-response" };
    await expect(api.call("POST", "/cubes", cubeBody(), headers)).rejects.toThrow();
    const listed = (await api.call("GET", "/cubes")).body.cubes;
    expect(listed).toHaveLength(1);
    const retry = await api.call("POST", "/cubes", cubeBody(), headers);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotency-replayed")).toBe("true");
    expect(retry.body.cube.id).toBe(listed[0].id);
  });

  test("latency: the answer comes after the delay, then normally; `times` bounds how many requests it hits", async ({ api, emu }) => {
    emu.admin.injectFault({ kind: "latency", ms: 150, method: "GET", path: "/regions$", times: 2 });
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      expect((await api.call("GET", "/regions")).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    }
    const started = Date.now();
    await api.call("GET", "/regions");
    expect(Date.now() - started).toBeLessThan(140);
  });

  test("over HTTP: POST /__emulator/faults then DELETE /__emulator/faults clears them", async ({ api, emu }) => {
    const set = await fetch(`${emu.origin}/__emulator/faults`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ kind: "status", status: 500, times: 5 }),
    });
    expect(set.status).toBe(201);
    expect((await api.call("GET", "/space")).status).toBe(500);
    expect((await fetch(`${emu.origin}/__emulator/faults`, { method: "DELETE" })).status).toBe(200);
    expect((await api.call("GET", "/space")).status).toBe(200);
    const log = (await (await fetch(`${emu.origin}/__emulator/requests`)).json()) as { requests: { path: string; status: number }[] };
    expect(log.requests.map((r) => r.status)).toEqual([500, 200]);
  });
});
