import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { Api, cubeBody } from "../support/emulator.js";
import { waitFor } from "../support/wait.js";

/** The admin surface answers POSTs only with a JSON content type. */
const JSON_TYPE = { "content-type": "application/json" };

const running: RunningEmulator[] = [];
afterEach(async () => {
  for (const emu of running.splice(0)) await emu.close();
});

async function start(rateLimit?: { limit: number; windowMs: number }): Promise<Api> {
  const emu = await startEmulator({ clockSpeed: 200, rateLimit });
  running.push(emu);
  return new Api(emu.url, emu.apiKey, emu.spaceId);
}

describe("mutating-request rate limit", () => {
  it("§8 rule 1: the 11th mutating request within 60 s is a 429 with the message and Retry-After (default 10/60 s)", async () => {
    const api = await start();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await api.call("POST", "/cubes", cubeBody({ name: `c${i}` }))).status);
    expect(statuses.every((s) => s === 201)).toBe(true);
    const limited = await api.call("PATCH", "/cubes/cube_x", { terminationProtection: true });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatch(/^Rate limit exceeded: 10 mutating requests per 60 seconds\. Retry after \d+ seconds\.$/);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body.error).toContain(`Retry after ${retryAfter} seconds.`);
  });

  it("§8: reads are never limited, and every non-GET method counts (POST, PATCH, PUT, DELETE)", async () => {
    const api = await start({ limit: 4, windowMs: 60_000 });
    const cube = await api.createCube();
    await api.call("PATCH", `/cubes/${cube.id}`, { terminationProtection: false });
    await api.call("PUT", `/cubes/${cube.id}/ssh-port`, { cubePort: 2222 });
    await api.call("DELETE", `/cubes/${cube.id}/snapshots/none`);
    expect((await api.call("POST", "/cubes", cubeBody())).status).toBe(429);
    for (let i = 0; i < 30; i++) expect((await api.call("GET", `/cubes/${cube.id}`)).status).toBe(200);
  });

  it("is a sliding window: Retry-After is the time until the oldest counted request leaves it (≥ 1 s)", async () => {
    const api = await start({ limit: 2, windowMs: 1_500 });
    await api.call("POST", "/cubes", cubeBody());
    await api.call("POST", "/cubes", cubeBody());
    const limited = await api.call("POST", "/cubes", cubeBody());
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    const tight = await start({ limit: 1, windowMs: 200 });
    await tight.call("POST", "/cubes", cubeBody());
    const soon = await tight.call("POST", "/cubes", cubeBody());
    expect(soon.headers.get("retry-after")).toBe("1");
    // A refused request is not counted, so polling with POSTs ends once the window has slid.
    await waitFor(async () => (await tight.call("POST", "/cubes", cubeBody())).status === 201, { timeoutMs: 2_000 });
  });

  it("the limit is per client and applies before authentication (unauthenticated mutations count too)", async () => {
    const api = await start({ limit: 2, windowMs: 60_000 });
    const anonymous = api.as(undefined);
    expect((await anonymous.call("POST", "/cubes", cubeBody())).status).toBe(401);
    expect((await anonymous.call("POST", "/cubes", cubeBody())).status).toBe(401);
    expect((await api.call("POST", "/cubes", cubeBody())).status).toBe(429);
  });

  it("admin setRateLimit (and POST /__emulator/rate-limit) changes the limit", async () => {
    const api = await start({ limit: 1, windowMs: 60_000 });
    await api.call("POST", "/cubes", cubeBody());
    expect((await api.call("POST", "/cubes", cubeBody())).status).toBe(429);
    const origin = api.url.replace(/\/api\/v1$/, "");
    const set = await fetch(`${origin}/__emulator/rate-limit`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ limit: 5, windowMs: 60_000 }),
    });
    expect(set.status).toBe(200);
    expect((await api.call("POST", "/cubes", cubeBody())).status).toBe(201);
  });
});
