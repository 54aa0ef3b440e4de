/**
 * Every malformed request gets a 4xx with the reference's error body ({error: string}), never a
 * 500 or a 2xx: a tour of the whole route table (emulator/routes.ts) with bad path encodings,
 * bodies that are not JSON objects, unknown or repeated query parameters, and oversize bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { ROUTES, type Route } from "../../emulator/routes.js";
import { apiOf, type Api } from "../support/emulator.js";

let emu: RunningEmulator;
let api: Api;
/** Real ids, so a route that would accept the request reaches its handler. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  emu = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 100_000, windowMs: 60_000 } });
  api = apiOf(emu);
  const cube = await api.runningCube({ name: "target" });
  const domain = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "app.example.com", port: 3000 });
  expect(domain.status).toBe(201);
  Object.assign(ids, { spaceId: emu.spaceId, cubeId: cube.id, mappingId: domain.body.domain.id });
});

afterAll(() => emu.close());

const withIds = (route: Route, override: Record<string, string> = {}) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? ids[name] ?? `${name.replace(/Id$/, "")}_nosuch`);

const hasBody = (route: Route) => route.method !== "GET" && route.method !== "DELETE";

async function send(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${emu.url}${path}`, {
    method,
    headers: { "x-api-key": emu.apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text };
}

/** The answer is the given 4xx with the reference's error body: one string field, error. */
function expectClientError(result: { status: number; text: string }, status: number, pattern: RegExp, what: string): void {
  expect({ what, status: result.status }).toEqual({ what, status });
  const body = JSON.parse(result.text) as Record<string, unknown>;
  expect(Object.keys(body), what).toEqual(["error"]);
  expect(body.error, what).toMatch(pattern);
}

const TOURED = ROUTES.filter((route) => route.path !== "/openapi.json" || route.method === "GET");

describe("every route of the emulator answers 400 to a malformed request", () => {
  it("a path parameter with malformed percent-encoding (%ff, %zz, a lone %): 400, not 500", async () => {
    let checked = 0;
    for (const route of TOURED) {
      for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
        for (const bad of ["%ff", "%zz", "a%", "%e2%82"]) {
          const path = withIds(route, { [name ?? ""]: bad });
          expectClientError(
            await send(route.method, path, hasBody(route) ? "{}" : undefined),
            400,
            /percent-encoding/,
            `${route.method} ${path}`,
          );
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("a body that is JSON but not an object (null, array, number, string, boolean) or not JSON: 400", async () => {
    const bodies: [string, RegExp][] = [
      ["null", /must be a JSON object, not null/],
      ["[]", /not an array/],
      ['[{"name":"x"}]', /not an array/],
      ["1", /not a number/],
      ['"text"', /not a string/],
      ["true", /not a boolean/],
      ["{", /not valid JSON/],
      ['{"name":"x",}', /not valid JSON/],
      ["\u0000", /not valid JSON/],
    ];
    for (const route of TOURED.filter(hasBody)) {
      for (const [body, pattern] of bodies) {
        expectClientError(
          await send(route.method, withIds(route), body),
          400,
          pattern,
          `${route.method} ${route.path} with ${JSON.stringify(body)}`,
        );
      }
    }
  });

  it("a JSON null PATCH changes nothing (it was a 200 no-op)", async () => {
    const before = await api.call("GET", `/cubes/${ids.cubeId}`);
    expectClientError(await send("PATCH", `/spaces/${emu.spaceId}/cubes/${ids.cubeId}`, "null"), 400, /JSON object/, "PATCH null");
    expectClientError(
      await send("PATCH", `/spaces/${emu.spaceId}/cubes/${ids.cubeId}/domains/${ids.mappingId}`, "null"),
      400,
      /JSON object/,
      "PATCH domain null",
    );
    expect((await api.call("GET", `/cubes/${ids.cubeId}`)).body).toEqual(before.body);
  });

  it("a field the route does not take: 400 naming it (also on routes that take no body at all)", async () => {
    for (const route of TOURED.filter(hasBody)) {
      const result = await send(route.method, withIds(route), JSON.stringify({ unexpectedField: 1 }));
      expectClientError(result, 400, /unexpectedField/, `${route.method} ${route.path}`);
    }
  });

  it("an unknown or repeated query parameter, or a bad value of a known one: 400 naming it", async () => {
    for (const route of TOURED) {
      const body = hasBody(route) ? "{}" : undefined;
      expectClientError(
        await send(route.method, `${withIds(route)}?nosuch=1`, body),
        400,
        /Unknown query parameter "nosuch"/,
        `${route.method} ${route.path}?nosuch`,
      );
      for (const param of route.doc.query ?? []) {
        const name = String(param.name);
        for (const value of ["abc", "0", "-1", "1.5", "", "1e3", "99999999999999999999"]) {
          const path = `${withIds(route)}?${name}=${value}`;
          expectClientError(await send(route.method, path, body), 400, new RegExp(name), `${route.method} ${path}`);
        }
        const repeated = `${withIds(route)}?${name}=1&${name}=2`;
        expectClientError(await send(route.method, repeated, body), 400, /more than once/, `${route.method} ${repeated}`);
      }
    }
  });

  it("a body over 1 MiB: 413 that the client reads (by Content-Length and chunked), and the emulator goes on", async () => {
    const path = `/spaces/${emu.spaceId}/cubes`;
    expectClientError(
      await send("POST", path, JSON.stringify({ name: "x".repeat(2_000_000) })),
      413,
      /larger than 1048576 bytes/,
      "Content-Length",
    );
    const chunk = new TextEncoder().encode("y".repeat(100_000));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 30; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const chunked = await fetch(`${emu.url}${path}`, {
      method: "POST",
      headers: { "x-api-key": emu.apiKey },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expectClientError({ status: chunked.status, text: await chunked.text() }, 413, /larger than/, "chunked");
    expect((await api.call("GET", "/space")).status).toBe(200);
  });

  it("a presigned storage path with malformed percent-encoding: 400, and the emulator process survives", async () => {
    const response = await fetch(`${emu.origin}/__storage/backups/%ff`);
    expectClientError({ status: response.status, text: await response.text() }, 400, /percent-encoding/, "storage");
    expect((await api.call("GET", "/space")).status).toBe(200);
  });

  it("the admin surface too: a body that is not a JSON object is a 400 (a null POST /spaces made a space)", async () => {
    for (const [method, path] of [
      ["POST", "/spaces"],
      ["POST", "/faults"],
      ["POST", "/clock"],
      ["POST", "/dns"],
      ["DELETE", "/dns"],
      ["POST", "/device"],
    ] as const) {
      for (const body of ["null", "[]", "7", "{"]) {
        const response = await fetch(`${emu.origin}/__emulator${path}`, { method, headers: { "content-type": "application/json" }, body });
        expectClientError({ status: response.status, text: await response.text() }, 400, /JSON/, `${method} /__emulator${path} ${body}`);
      }
    }
  });

  it("no request of the tour was answered with a 5xx", () => {
    const log = emu.admin.requests();
    expect(log.filter((entry) => entry.status >= 500)).toEqual([]);
  });
});
