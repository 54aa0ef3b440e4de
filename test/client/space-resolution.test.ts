import { describe, expect, test } from "vitest";
import { useHarness } from "./support/client.js";

const harness = useHarness();
const space = { id: "sp-resolved", name: "Main", tier: "pro", createdAt: "2026-01-01T00:00:00Z" };

describe("spaceId()", () => {
  test("uses the configured space without asking the server", async () => {
    const h = await harness(() => ({ body: { cubes: [], pagination: { page: 1, limit: 100, total: 0, totalPages: 1 } } }));
    expect(await h.client.spaceId()).toBe("s1");
    await h.client.listCubes();
    expect(h.server.received.map((r) => r.path)).toEqual(["/spaces/s1/cubes"]);
  });

  test("resolves once with GET /space, shared by concurrent callers", async () => {
    const h = await harness(
      (r) =>
        r.path === "/space" ? { body: space } : { body: { cubes: [], pagination: { page: 1, limit: 100, total: 0, totalPages: 1 } } },
      { spaceId: undefined },
    );
    const ids = await Promise.all([h.client.spaceId(), h.client.spaceId(), h.client.listCubes().then(() => h.client.spaceId())]);
    expect(ids).toEqual(["sp-resolved", "sp-resolved", "sp-resolved"]);
    expect(h.server.received.filter((r) => r.path === "/space")).toHaveLength(1);
    expect(h.server.received.filter((r) => r.path === "/spaces/sp-resolved/cubes")).toHaveLength(1);
  });

  test("a failed lookup is not cached", async () => {
    const h = await harness((_r, i) => (i === 0 ? { status: 401, body: { error: "Invalid API key" } } : { body: { space } }), {
      spaceId: undefined,
    });
    await expect(h.client.spaceId()).rejects.toMatchObject({ code: "unauthorized" });
    expect(await h.client.spaceId()).toBe("sp-resolved");
  });

  test("lookups of regions, images and pricing do not send the key", async () => {
    const h = await harness((r) =>
      r.path === "/regions" ? { body: { regions: [{ id: "r1", name: "Nuremberg", slug: "eu-nuremberg" }] } } : { body: { images: [] } },
    );
    expect(await h.client.listRegions()).toHaveLength(1);
    await h.client.listImages();
    expect(h.server.received.map((r) => r.headers["x-api-key"])).toEqual([undefined, undefined]);
  });
});
