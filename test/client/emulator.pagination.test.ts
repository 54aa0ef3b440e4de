import { describe, expect, test } from "vitest";
import { newIdempotencyKey } from "../../client/index.js";
import { cubeBody, useEmulator } from "./support/emulator.js";

const start = useEmulator();

describe("listCubes against the emulator", () => {
  test("25 cubes at page size 10 are read in 3 pages", async () => {
    const fast = { limit: 100, windowMs: 1000 };
    const { emulator, client } = await start({ defaultPageSize: 10, rateLimit: fast }, { rateLimit: fast });
    const created = await Promise.all(
      Array.from({ length: 25 }, (_, i) => client.createCube(cubeBody(`page-${i}`), { idempotencyKey: newIdempotencyKey() })),
    );
    emulator.admin.clearRequests();

    const listed = await client.listCubes({ pageSize: 10 });

    expect(new Set(listed.map((c) => c.id))).toEqual(new Set(created.map((c) => c.id)));
    expect(listed).toHaveLength(25);
    const pages = emulator.admin.requests().filter((r) => r.method === "GET");
    expect(pages.map((r) => new URLSearchParams(r.query).get("page"))).toEqual(["1", "2", "3"]);
    const first = await client.listCubesPage(1);
    expect(first.pagination).toMatchObject({ total: 25 });
  });
});
