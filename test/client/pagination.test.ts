import { describe, expect, test } from "vitest";
import { useHarness } from "./support/client.js";
import { sampleCube } from "./support/server.js";

const harness = useHarness();

function pagedServer(total: number) {
  const all = Array.from({ length: total }, (_, i) => sampleCube(`c${i + 1}`));
  return (r: { query: URLSearchParams }) => {
    const page = Number(r.query.get("page") ?? 1);
    const limit = Number(r.query.get("limit") ?? 20);
    const cubes = all.slice((page - 1) * limit, page * limit);
    return { body: { cubes, pagination: { page, limit, total, totalPages: Math.max(1, Math.ceil(total / limit)) } } };
  };
}

describe("listCubes walks every page", () => {
  test("25 cubes at page size 10: three requests, every cube once, in order", async () => {
    const h = await harness(pagedServer(25));
    const cubes = await h.client.listCubes({ pageSize: 10 });
    expect(cubes.map((c) => c.id)).toEqual(Array.from({ length: 25 }, (_, i) => `c${i + 1}`));
    // Page 1 first (it says how many there are), then the others at once.
    expect(h.server.received[0]?.query.toString()).toBe("page=1&limit=10");
    expect(h.server.received.map((r) => r.query.toString()).sort()).toEqual(["page=1&limit=10", "page=2&limit=10", "page=3&limit=10"]);
  });

  test("50 pages: each read once, at most 8 in flight after the first, cubes in page order", async () => {
    let inFlight = 0;
    let most = 0;
    const serve = pagedServer(500);
    const h = await harness(async (r) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return serve(r);
    });
    const cubes = await h.client.listCubes({ pageSize: 10 });
    expect(cubes.map((c) => c.id)).toEqual(Array.from({ length: 500 }, (_, i) => `c${i + 1}`));
    expect(h.server.received.map((r) => Number(r.query.get("page"))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    expect(most).toBeLessThanOrEqual(8);
    expect(most).toBeGreaterThan(1);
  });

  test("a slow page does not hold back the pages after it; cubes still come in page order", async () => {
    const serve = pagedServer(200);
    let laterPageAsked!: () => void;
    const asked = new Promise<boolean>((resolve) => (laterPageAsked = () => resolve(true)));
    let page12AskedWhilePage2Out = false;
    const h = await harness(async (r) => {
      const page = Number(r.query.get("page"));
      if (page === 12) laterPageAsked();
      // Page 2 is answered once page 12 is asked for, or after 2 s (reading in batches of 8 never asks for it while page 2 is out).
      if (page === 2)
        page12AskedWhilePage2Out = await Promise.race([asked, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000))]);
      return serve(r);
    });
    const handedOut: string[] = [];
    const cubes = await h.client.listCubes({ pageSize: 10, onCubes: (seen) => handedOut.push(...seen.map((c) => c.id)) });
    expect(page12AskedWhilePage2Out).toBe(true);
    expect(cubes.map((c) => c.id)).toEqual(Array.from({ length: 200 }, (_, i) => `c${i + 1}`));
    expect(handedOut).toEqual(cubes.map((c) => c.id));
    expect(h.server.received).toHaveLength(20);
  });

  test("the default page size is 100", async () => {
    const h = await harness(pagedServer(3));
    expect(await h.client.listCubes()).toHaveLength(3);
    expect(h.server.received.map((r) => r.query.get("limit"))).toEqual(["100"]);
  });

  test("an empty space is one request", async () => {
    const h = await harness(pagedServer(0));
    expect(await h.client.listCubes()).toEqual([]);
    expect(h.server.received).toHaveLength(1);
  });

  test("listCubesPage returns one page and its pagination", async () => {
    const h = await harness(pagedServer(25));
    const page = await h.client.listCubesPage(3, 10);
    expect(page.cubes.map((c) => c.id)).toEqual(["c21", "c22", "c23", "c24", "c25"]);
    expect(page.pagination).toEqual({ page: 3, limit: 10, total: 25, totalPages: 3 });
  });

  test("a cube that shifts to the next page while walking is listed once", async () => {
    const h = await harness((r) => {
      const page = Number(r.query.get("page"));
      const cubes = page === 1 ? [sampleCube("a"), sampleCube("b")] : [sampleCube("b"), sampleCube("c")];
      return { body: { cubes, pagination: { page, limit: 2, total: 4, totalPages: 2 } } };
    });
    expect((await h.client.listCubes({ pageSize: 2 })).map((c) => c.id)).toEqual(["a", "b", "c"]);
  });
});
