import { describe, expect } from "vitest";
import { test } from "../support/emulator.js";

/** The admin surface answers POSTs only with a JSON content type. */
const JSON_TYPE = { "content-type": "application/json" };

describe("operator and system termination", () => {
  test("§2 audit rows: an admin termination removes a protected cube and writes an internal row hidden from the customer log", async ({
    api,
    emu,
  }) => {
    const cube = await api.createCube({ terminationProtection: true });
    emu.admin.terminateCube({ cubeId: cube.id, actorType: "admin", reason: "abuse report #4411" });
    expect((await api.call("GET", `/cubes/${cube.id}`)).status).toBe(404);
    const internal = emu.admin.auditRows({ visibility: "internal" });
    expect(internal).toEqual([
      expect.objectContaining({
        actorType: "admin",
        visibility: "internal",
        targetId: cube.id,
        reason: "abuse report #4411",
        category: "cube",
        spaceId: emu.spaceId,
      }),
    ]);
    const log = await api.call("GET", "/audit-log");
    expect(log.body.auditRows.map((r: { visibility?: string; action: string }) => r.action)).toEqual(["termination_protection.enabled"]);
    expect(JSON.stringify(log.body)).not.toContain("abuse report");
    expect(JSON.stringify(log.body)).not.toContain("internal");
  });

  test("§2 audit rows: system terminations need one of the four system cases", async ({ api, emu }) => {
    const cube = await api.createCube({ terminationProtection: true });
    expect(() => emu.admin.terminateCube({ cubeId: cube.id, actorType: "system", reason: "sweep" })).toThrow(/systemCase/);
    expect((await api.call("GET", `/cubes/${cube.id}`)).status).toBe(200);
    for (const systemCase of [
      "unfunded_storage_sweep",
      "snapshot_rollback_failure",
      "transfer_cancellation_cleanup",
      "orphan_directory_teardown",
    ] as const) {
      const target = await api.createCube({ terminationProtection: true, name: systemCase.replace(/_/g, "-") });
      emu.admin.terminateCube({ cubeId: target.id, actorType: "system", reason: `case ${systemCase}`, systemCase });
    }
    const rows = emu.admin.auditRows({ visibility: "internal" });
    expect(rows.map((r) => [r.actorType, r.details.systemCase])).toEqual([
      ["system", "unfunded_storage_sweep"],
      ["system", "snapshot_rollback_failure"],
      ["system", "transfer_cancellation_cleanup"],
      ["system", "orphan_directory_teardown"],
    ]);
    expect((await api.call("GET", "/audit-log")).body.auditRows.every((r: { actorType: string }) => r.actorType === "user")).toBe(true);
  });

  test("over HTTP: POST /__emulator/terminate and GET /__emulator/audit?visibility=internal", async ({ api, emu }) => {
    const cube = await api.createCube({ terminationProtection: true });
    const bad = await fetch(`${emu.origin}/__emulator/terminate`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ cubeId: cube.id, actorType: "system", reason: "x" }),
    });
    expect(bad.status).toBe(400);
    const ok = await fetch(`${emu.origin}/__emulator/terminate`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ cubeId: cube.id, actorType: "system", reason: "rollback failed", systemCase: "snapshot_rollback_failure" }),
    });
    expect(ok.status).toBe(200);
    const audit = (await (await fetch(`${emu.origin}/__emulator/audit?visibility=internal`)).json()) as {
      auditRows: { reason?: string }[];
    };
    expect(audit.auditRows.map((r) => r.reason)).toEqual(["rollback failed"]);
    const missing = await fetch(`${emu.origin}/__emulator/terminate`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ cubeId: "cube_none", actorType: "admin", reason: "x" }),
    });
    expect(missing.status).toBe(404);
  });
});
