import { describe, expect } from "vitest";
import { test } from "../support/emulator.js";
import { waitFor } from "../support/wait.js";

const PROTECTED_MESSAGE = "This Cube has termination protection on. Turn it off before deleting.";

describe("termination protection", () => {
  test("§3 rule 3: setting terminationProtection to its current value is a 200 no-op without audit row", async ({ api, emu }) => {
    const cube = await api.createCube();
    const same = await api.call("PATCH", `/cubes/${cube.id}`, { terminationProtection: false });
    expect(same.status).toBe(200);
    expect(same.body.cube).toMatchObject({
      terminationProtection: false,
      terminationProtectionChangedAt: null,
      terminationProtectionChangedBy: null,
    });
    expect(emu.admin.auditRows({ visibility: "customer" })).toEqual([]);

    const on = await api.call("PATCH", `/cubes/${cube.id}`, { terminationProtection: true });
    const again = await api.call("PATCH", `/cubes/${cube.id}`, { terminationProtection: true });
    expect(again.status).toBe(200);
    expect(again.body.cube.terminationProtectionChangedAt).toBe(on.body.cube.terminationProtectionChangedAt);
    expect(again.body.cube.terminationProtectionChangedBy).toBe(on.body.cube.terminationProtectionChangedBy);
    expect(emu.admin.auditRows({ visibility: "customer" })).toHaveLength(1);
  });

  test("§2 audit rows: a change writes a customer row in category cube and stamps ChangedAt/By", async ({ api, emu }) => {
    const cube = await api.createCube();
    const on = await api.call("PATCH", `/cubes/${cube.id}`, { terminationProtection: true });
    expect(on.body.cube.terminationProtection).toBe(true);
    expect(on.body.cube.terminationProtectionChangedBy).toMatch(/^user:key_/);
    expect(Date.parse(on.body.cube.terminationProtectionChangedAt)).not.toBeNaN();
    const rows = emu.admin.auditRows({ visibility: "customer" });
    expect(rows).toEqual([
      expect.objectContaining({ category: "cube", actorType: "user", targetId: cube.id, visibility: "customer", spaceId: emu.spaceId }),
    ]);
    const log = await api.call("GET", "/audit-log");
    expect(log.status).toBe(200);
    expect(log.body.auditRows).toEqual([expect.objectContaining({ id: rows[0]?.id, category: "cube", targetId: cube.id })]);
  });

  test("§3 rule 1 / §4 rule 1 / §7: DELETE of a protected cube is 409 with {error:{code, message, cube}}", async ({ api }) => {
    const cube = await api.createCube({ terminationProtection: true });
    const result = await api.call("DELETE", `/cubes/${cube.id}`);
    expect(result.status).toBe(409);
    expect(result.body.error.code).toBe("termination_protected");
    expect(result.body.error.message).toBe(PROTECTED_MESSAGE);
    expect(result.body.error.cube).toMatchObject({
      id: cube.id,
      name: cube.name,
      state: expect.any(String),
      terminationProtection: true,
      terminationProtectionChangedAt: expect.any(String),
      terminationProtectionChangedBy: expect.stringMatching(/^user:/),
      resources: cube.resources,
    });
    expect((await api.call("GET", `/cubes/${cube.id}`)).status).toBe(200);
  });

  test("§3 rule 2: while protected, power off, wake, restart, snapshot create/delete and restore stay allowed", async ({ api }) => {
    const cube = await api.runningCube({ terminationProtection: true });
    expect((await api.call("POST", `/cubes/${cube.id}/restart`)).status).toBe(200);
    await api.waitForState(cube.id, "running");
    expect((await api.call("POST", `/cubes/${cube.id}/power-off`)).status).toBe(200);
    await api.waitForState(cube.id, "stopped");
    expect((await api.call("POST", `/cubes/${cube.id}/wake`)).status).toBe(200);
    await api.waitForState(cube.id, "running");
    const snapshot = await api.call("POST", `/cubes/${cube.id}/snapshots`, { name: "before" });
    expect(snapshot.status).toBe(201);
    await waitFor(async () => (await api.call("GET", `/cubes/${cube.id}/snapshots`)).body.snapshots[0]?.status === "complete");
    expect((await api.call("POST", `/cubes/${cube.id}/restore`, { snapshotId: snapshot.body.snapshot.id })).status).toBe(200);
    expect((await api.call("DELETE", `/cubes/${cube.id}/snapshots/${snapshot.body.snapshot.id}`)).status).toBe(200);
    expect((await api.call("DELETE", `/cubes/${cube.id}`)).status).toBe(409);
  });

  test("§4 DELETE: unprotected delete is 200 {success:true}, then stopping, then gone (404); resources are freed", async ({ api, emu }) => {
    const cube = await api.runningCube();
    const port = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 8080 });
    await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "gone.example.com", port: 8080 });
    await api.call("PATCH", `/cubes/${cube.id}`, { terminationProtection: true });
    await api.call("PATCH", `/cubes/${cube.id}`, { terminationProtection: false });
    emu.admin.setClockSpeed(1);
    const deleted = await api.call("DELETE", `/cubes/${cube.id}`);
    expect(deleted).toMatchObject({ status: 200, body: { success: true } });
    expect((await api.call("GET", `/cubes/${cube.id}`)).body.cube.state).toBe("stopping");
    emu.admin.setClockSpeed(1000);
    await waitFor(async () => (await api.call("GET", `/cubes/${cube.id}`)).status === 404);
    const other = await api.createCube({ name: "next" });
    const reuse = await api.call("POST", `/cubes/${other.id}/domains`, { domain: "gone.example.com", port: 80 });
    expect(reuse.status).toBe(201);
    expect(port.body.tcpMapping.hostPort).toBeGreaterThan(0);
    expect(emu.admin.auditRows({ visibility: "customer" })).toHaveLength(2);
  });
});
