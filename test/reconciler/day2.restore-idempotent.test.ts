/**
 * `snapshot restore` carries an Idempotency-Key (issue 31 item e): a 5xx on the restore request is resent under the same key, and the
 * cube's disk is rewritten once.
 */
import { describe, expect } from "vitest";
import { waitFor } from "../support/wait.js";
import { SSH_KEY } from "./support/cli.js";
import { FAST, test, type CliFixture } from "./support/fixtures.js";

async function cubeWithSnapshot(fx: CliFixture) {
  const db = await fx.api.createCube(
    { name: "db", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "create-db" },
  );
  await waitFor(async () => ((await fx.api.getCube(db.id)).state === "running" ? true : undefined), { timeoutMs: 15_000 });
  const taken = await fx.api.createSnapshot(db.id, { name: "s1" }, { idempotencyKey: "snap-1" });
  await waitFor(
    async () => ((await fx.api.listSnapshots(db.id)).find((s) => s.id === taken.id)?.status === "complete" ? true : undefined),
    { timeoutMs: 15_000 },
  );
  return db;
}

const restores = (fx: CliFixture) => fx.emulator.admin.requests().filter((r) => r.method === "POST" && r.path.endsWith("/restore"));

describe("snapshot restore", () => {
  test("sends an Idempotency-Key; answered 503 twice, it is resent with the same key and performed once", async ({ fx }) => {
    await cubeWithSnapshot(fx);
    fx.emulator.admin.injectFault({ kind: "status", status: 503, method: "POST", path: "/restore$", times: 2 });
    const run = await fx.cli(["snapshot", "restore", "db", "s1", "--yes", "--wait", "--interval", "20ms", ...FAST]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('restored from snapshot "s1"');
    const sent = restores(fx);
    expect(sent.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(sent[0]?.idempotencyKey).toBeTruthy();
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(1);
  }, 60_000);

  test("two restores are two operations: each its own key", async ({ fx }) => {
    await cubeWithSnapshot(fx);
    for (let i = 0; i < 2; i++)
      expect((await fx.cli(["snapshot", "restore", "db", "s1", "--yes", "--wait", "--interval", "20ms", ...FAST])).exitCode).toBe(0);
    const keys = restores(fx).map((r) => r.idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
  }, 60_000);
});
