/**
 * Large fleets: per-server host-port pools, indexes kept in step by every mutation, the
 * request counter beyond the log's window, and reads that stay cheap as the fleet grows.
 * Socket-free (app.request) so that thousands of requests take well under a second or two.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createEmulatorApp, type EmulatorApp } from "../../emulator/index.js";
import { CUBES_PER_SERVER, HOST_PORT_MAX, HOST_PORT_MIN, ServerPools } from "../../emulator/core/servers.js";
import { cubeBody } from "../support/emulator.js";

const apps: EmulatorApp[] = [];
afterEach(() => {
  for (const app of apps.splice(0)) app.close();
});

function newApp(): EmulatorApp {
  const app = createEmulatorApp({ clockSpeed: 1, rateLimit: { limit: 1_000_000, windowMs: 60_000 } });
  apps.push(app);
  return app;
}

async function call(app: EmulatorApp, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await app.request(`/api/v1/spaces/${app.spaceId}${path}`, {
    method,
    headers: { "x-api-key": app.apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function createCubes(app: EmulatorApp, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await call(app, "POST", "/cubes", cubeBody({ name: `c${i}` }));
    expect(created.status).toBe(201);
    ids.push(created.body.cube.id);
  }
  return ids;
}

async function hostPortsOf(app: EmulatorApp, cubeId: string): Promise<number[]> {
  const list = await call(app, "GET", `/cubes/${cubeId}/tcp-mappings`);
  return list.body.tcpMappings.map((m: { hostPort: number }) => m.hostPort);
}

describe("emulated servers and their host-port pools", () => {
  it("cubes fill servers of CUBES_PER_SERVER; each server has its own 30000–50000 pool; host stays the cube hostname", async () => {
    const app = newApp();
    const ids = await createCubes(app, CUBES_PER_SERVER + 1);
    app.admin.advanceClock(60_000);
    const first = ids[0] as string;
    const last = ids[CUBES_PER_SERVER] as string;
    expect((await call(app, "GET", `/cubes/${first}`)).body.cube.serverDomain).toBe("node-1.emulator.local");
    expect((await call(app, "GET", `/cubes/${last}`)).body.cube.serverDomain).toBe("node-2.emulator.local");

    // The first cube of server 2 starts its server's pool afresh: same SSH host port as server 1's first.
    expect(await hostPortsOf(app, last)).toEqual(await hostPortsOf(app, first));
    const mapping = await call(app, "POST", `/cubes/${last}/tcp-mappings`, { cubePort: 5432 });
    expect(mapping.body.tcpMapping).toMatchObject({ host: `${last}.cubes.emulator.local` });

    const serverOnePorts = (await Promise.all(ids.slice(0, CUBES_PER_SERVER).map((id) => hostPortsOf(app, id)))).flat();
    expect(new Set(serverOnePorts).size).toBe(serverOnePorts.length);
    for (const port of serverOnePorts) expect(port >= HOST_PORT_MIN && port <= HOST_PORT_MAX).toBe(true);
  });

  it("a pool hands out every port once, answers 503 when exhausted, and reuses a freed port", () => {
    const pools = new ServerPools();
    const server = pools.assign();
    const seen = new Set<number>();
    for (let i = HOST_PORT_MIN; i <= HOST_PORT_MAX; i++) seen.add(pools.allocatePort(server));
    expect(seen.size).toBe(HOST_PORT_MAX - HOST_PORT_MIN + 1);
    expect(() => pools.allocatePort(server)).toThrow(/No ports available/);
    pools.freePort(server, 31234);
    expect(pools.allocatePort(server)).toBe(31234);
    // Another server's pool is its own.
    for (let i = 0; i < CUBES_PER_SERVER - 1; i++) expect(pools.assign()).toBe(server);
    const second = pools.assign();
    expect(second).toBe(server + 1);
    expect(pools.allocatePort(second)).toBe(HOST_PORT_MIN);
    pools.release(server);
    expect(pools.assign()).toBe(server);
  });

  it("a deleted cube frees its slot, its host ports and its domain names", async () => {
    const app = newApp();
    const [cube] = await createCubes(app, 1);
    expect((await call(app, "POST", `/cubes/${cube}/domains`, { domain: "reuse.example.com", port: 80 })).status).toBe(201);
    const ports = await hostPortsOf(app, cube as string);
    app.admin.terminateCube({ cubeId: cube as string, actorType: "admin", reason: "test" });

    const [next] = await createCubes(app, 1);
    expect((await call(app, "POST", `/cubes/${next}/domains`, { domain: "reuse.example.com", port: 80 })).status).toBe(201);
    expect((await call(app, "POST", `/cubes/${next}/domains`, { domain: "reuse.example.com", port: 80 })).status).toBe(409);
    expect(await hostPortsOf(app, next as string)).not.toEqual([]);
    expect(ports).toHaveLength(1);
    const listed = await call(app, "GET", "/cubes?limit=100");
    expect(listed.body.cubes.map((c: { id: string }) => c.id)).toEqual([next]);
  });
});

describe("request counts", () => {
  it("count every request by method beyond the log's 10,000 entries, over HTTP admin too; clearRequests zeroes them", async () => {
    const app = newApp();
    const [cube] = await createCubes(app, 1);
    for (let i = 0; i < 10_050; i++) await call(app, "GET", `/cubes/${cube}/domains`);
    expect(app.admin.requests()).toHaveLength(10_000);
    expect(app.admin.requestCounts()).toEqual({ POST: 1, GET: 10_050 });
    const overHttp = await app.request("/__emulator/request-counts");
    expect(await overHttp.json()).toEqual({ requestCounts: { POST: 1, GET: 10_050 } });
    app.admin.clearRequests();
    expect(app.admin.requestCounts()).toEqual({});
    expect(app.admin.requests()).toEqual([]);
  });
});

describe("reads at fleet size", () => {
  it("paging, per-cube lists and publicIpv4 agree with what was created (2,000 cubes)", async () => {
    const app = newApp();
    const ids = await createCubes(app, 2_000);
    const mapped = ids.filter((_, i) => i % 7 === 0);
    for (const id of mapped) expect((await call(app, "POST", `/cubes/${id}/tcp-mappings`, { cubePort: 8080 })).status).toBe(201);
    app.admin.advanceClock(60_000);

    const seen: { id: string; publicIpv4: string | null }[] = [];
    for (let page = 1; page <= 20; page++) {
      const list = await call(app, "GET", `/cubes?page=${page}&limit=100`);
      expect(list.body.pagination).toEqual({ page, limit: 100, total: 2_000, totalPages: 20 });
      seen.push(...list.body.cubes);
    }
    expect(seen.map((c) => c.id)).toEqual(ids);
    const withIp = new Set(seen.filter((c) => c.publicIpv4 !== null).map((c) => c.id));
    expect(withIp).toEqual(new Set(mapped));
  });
});
