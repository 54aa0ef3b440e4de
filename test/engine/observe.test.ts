import { describe, expect, test } from "vitest";
import { observe } from "../../engine/index.js";
import { ApiFailure, fakeClient } from "./fake-client.js";
import { cube, domain } from "./fixtures.js";

describe("observe", () => {
  test("lists every cube, reads each one's domains and mappings, and counts the reads", async () => {
    const client = fakeClient({
      cubes: [cube("a"), cube("b"), cube("gone", { state: "deleted" })],
      domains: { "cube-a": [domain("cube-a", "a.example.com")] },
    });
    const state = await observe(client, { now: () => new Date("2026-01-01T00:00:00Z") });
    expect(state.cubes.map((c) => c.cube.name)).toEqual(["a", "b"]);
    expect(state.cubes[0]?.domains.map((d) => d.hostname)).toEqual(["a.example.com"]);
    // two pages of cubes + 2 reads per cube
    expect(state.reads).toBe(2 + 2 * 2);
    expect(state).toMatchObject({ spaceId: "space-1", observedAt: "2026-01-01T00:00:00.000Z" });
  });

  test("a cube whose sub-resources answer 404 is being deleted: it is dropped", async () => {
    const client = fakeClient({ cubes: [cube("a"), cube("b", { state: "stopping" })] });
    client.failures.set("listTcpMappings cube-b", new ApiFailure("not_found"));
    expect((await observe(client)).cubes.map((c) => c.cube.name)).toEqual(["a"]);
  });

  test("other errors are not swallowed", async () => {
    const client = fakeClient({ cubes: [cube("a")] });
    client.failures.set("listDomains cube-a", new ApiFailure("server_error"));
    await expect(observe(client)).rejects.toMatchObject({ code: "server_error" });
  });

  test("with targets only their sub-resources are read", async () => {
    const client = fakeClient({ cubes: [cube("a"), cube("b")] });
    await observe(client, { cubeNames: ["b"] });
    expect(client.calls.filter((c) => c.startsWith("list") && c !== "listCubes")).toEqual(["listDomains cube-b", "listTcpMappings cube-b"]);
  });

  test("sub-resource reads run with bounded concurrency", async () => {
    const cubes = Array.from({ length: 10 }, (_, i) => cube(`c${i}`));
    const client = fakeClient({ cubes });
    let active = 0;
    let peak = 0;
    const original = client.listDomains.bind(client);
    client.listDomains = async (id) => {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setImmediate(resolve));
      active -= 1;
      return original(id);
    };
    await observe(client, { concurrency: 3 });
    expect(peak).toBe(3);
  });
});
