import { afterEach, describe, expect, test } from "vitest";
import { createClient } from "../../client/index.js";
import { sampleCube, startTestServer, type Handler, type TestServer } from "./support/server.js";

let server: TestServer | undefined;
let client: ReturnType<typeof createClient> | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
});

async function clientFor(handler: Handler) {
  server = await startTestServer(handler);
  client = createClient({ baseUrl: server.url, apiKey: "kro_test", spaceId: "s1" });
  return client;
}

describe("responses in the reference's envelopes and the spec's bare shapes", () => {
  test("getCube accepts {cube} and a bare cube alike", async () => {
    const c = await clientFor((req) => (req.query.get("bare") ? { body: sampleCube("c1") } : { body: { cube: sampleCube("c1") } }));
    expect((await c.getCube("c1")).id).toBe("c1");
    await server!.close();
    const c2 = await clientFor(() => ({ body: sampleCube("c2") }));
    expect((await c2.getCube("c2")).id).toBe("c2");
  });

  test("a cube list can be a bare array (one page) or {cubes, pagination}", async () => {
    const c = await clientFor(() => ({ body: [sampleCube("a"), sampleCube("b")] }));
    expect((await c.listCubes()).map((x) => x.id)).toEqual(["a", "b"]);
    expect(server!.received).toHaveLength(1);
  });

  test("attachDomain accepts {domain, records} and a bare domain", async () => {
    const domain = { id: "d1", cubeId: "c1", domain: "app.example.com", port: 80, status: "active", isWildcard: false };
    const record = {
      id: "routing",
      type: "CNAME",
      host: "app.example.com",
      value: "dns.krova.cloud",
      purpose: "routing",
      mustBeGrey: false,
      proxyOk: true,
    };
    const c = await clientFor((_req, i) => ({ status: 201, body: i === 0 ? { domain, records: [record] } : domain }));
    const enveloped = await c.attachDomain("c1", { hostname: "app.example.com", port: 80 }, { idempotencyKey: "k1" });
    expect(enveloped.records).toHaveLength(1);
    const bare = await c.attachDomain("c1", { hostname: "app.example.com", port: 80 }, { idempotencyKey: "k2" });
    expect(bare).toEqual({
      domain: { id: "d1", cubeId: "c1", hostname: "app.example.com", port: 80, status: "active", isWildcard: false },
      records: [],
    });
  });

  test("an unexpected body is an invalid_response naming the path and the field", async () => {
    const c = await clientFor(() => ({ body: { cube: { ...sampleCube("c1"), state: "exploded" } } }));
    const err = await c.getCube("c1").catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "invalid_response", path: "/spaces/s1/cubes/c1" });
    expect(String(err)).toContain("state");
  });

  test("a non-JSON 200 is an invalid_response", async () => {
    const c = await clientFor(() => ({ raw: "<html>hi</html>" }));
    await expect(c.getCube("c1")).rejects.toMatchObject({ code: "invalid_response" });
  });
});
