import { describe, expect } from "vitest";
import { test } from "../support/emulator.js";
import { waitFor } from "../support/wait.js";

describe("snapshots", () => {
  test("create is 201 {snapshot} pending, then complete with a size; one in progress per cube (409)", async ({ api, emu }) => {
    const cube = await api.runningCube();
    emu.admin.setClockSpeed(1);
    const created = await api.call("POST", `/cubes/${cube.id}/snapshots`, { name: "nightly" });
    expect(created.status).toBe(201);
    expect(created.body.snapshot).toMatchObject({
      cubeId: cube.id,
      name: "nightly",
      status: "pending",
      sizeBytes: null,
      kind: expect.any(String),
    });
    const second = await api.call("POST", `/cubes/${cube.id}/snapshots`);
    expect(second.status).toBe(409);
    expect(second.body.error).toMatch(/in progress/);
    emu.admin.setClockSpeed(1000);
    const [done] = await waitFor(async () => {
      const list = (await api.call("GET", `/cubes/${cube.id}/snapshots`)).body.snapshots;
      return list[0]?.status === "complete" ? list : undefined;
    });
    expect(done.sizeBytes).toBeGreaterThan(0);
    expect((await api.call("POST", `/cubes/${cube.id}/snapshots`)).status).toBe(201);
  });

  test("restore needs a complete snapshot of this cube; delete removes it", async ({ api, emu }) => {
    const cube = await api.runningCube();
    emu.admin.setClockSpeed(1);
    const { body } = await api.call("POST", `/cubes/${cube.id}/snapshots`);
    expect((await api.call("POST", `/cubes/${cube.id}/restore`, { snapshotId: body.snapshot.id })).status).toBe(409);
    expect((await api.call("POST", `/cubes/${cube.id}/restore`, { snapshotId: "snap_none" })).status).toBe(400);
    expect((await api.call("POST", `/cubes/${cube.id}/restore`, {})).status).toBe(400);
    emu.admin.advanceClock(60_000);
    expect((await api.call("POST", `/cubes/${cube.id}/restore`, { snapshotId: body.snapshot.id })).body).toEqual({ success: true });
    expect((await api.call("DELETE", `/cubes/${cube.id}/snapshots/${body.snapshot.id}`)).body).toEqual({ success: true });
    expect((await api.call("GET", `/cubes/${cube.id}/snapshots`)).body.snapshots).toEqual([]);
    expect((await api.call("DELETE", `/cubes/${cube.id}/snapshots/${body.snapshot.id}`)).status).toBe(404);
  });
});
