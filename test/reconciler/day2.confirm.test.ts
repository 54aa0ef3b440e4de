/**
 * Day-2 commands that destroy or replace data (snapshot restore, snapshot delete, backup share,
 * power-off of a running cube) ask on a terminal, refuse without --yes when there is none,
 * and end at once when the run is asked to stop at the question.
 */
import { PassThrough, Writable } from "node:stream";
import { describe, expect } from "vitest";
import { main } from "../../reconciler/main.js";
import { waitFor } from "../support/wait.js";
import { SSH_KEY, testStateHome } from "./support/cli.js";
import { FAST, test, type CliFixture } from "./support/fixtures.js";

async function runningCube(fx: CliFixture, name: string) {
  const created = await fx.api.createCube(
    { name, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY, terminationProtection: true },
    { idempotencyKey: `create-${name}` },
  );
  await waitFor(async () => ((await fx.api.getCube(created.id)).state === "running" ? true : undefined), { timeoutMs: 15_000 });
  return created;
}

async function withSnapshot(fx: CliFixture) {
  const db = await runningCube(fx, "db");
  const taken = await fx.api.createSnapshot(db.id, { name: "before-upgrade" }, { idempotencyKey: "snap-1" });
  await waitFor(
    async () => ((await fx.api.listSnapshots(db.id)).find((s) => s.id === taken.id)?.status === "complete" ? true : undefined),
    { timeoutMs: 15_000 },
  );
  return { db, snapshot: taken };
}

const restores = (fx: CliFixture) => fx.emulator.admin.requests().filter((r) => r.method === "POST" && r.path.endsWith("/restore"));

describe("snapshot restore", () => {
  test("without a terminal: refused without --yes, nothing sent", async ({ fx }) => {
    await withSnapshot(fx);
    const run = await fx.cli(["snapshot", "restore", "db", "before-upgrade", ...FAST]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      'Error: refusing to restore cube "db" from snapshot "before-upgrade" without confirmation: stdin is not a terminal; pass --yes\n',
    );
    expect(restores(fx)).toEqual([]);
  });

  test("on a terminal it asks (naming protection); anything but yes cancels", async ({ fx }) => {
    await withSnapshot(fx);
    const run = await fx.cli(["snapshot", "restore", "db", "before-upgrade", ...FAST], { ttyInput: "n\n" });
    expect(run.stdout).toMatch(
      /^Restore cube "db" from snapshot "before-upgrade" \(.+\)\? Its disk is replaced: what was written since is lost\. Termination protection does not prevent this\. \(yes\/no\) $/,
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe('Error: restore cube "db" from snapshot "before-upgrade" cancelled: nothing was changed\n');
    expect(restores(fx)).toEqual([]);
  });

  test("yes restores; --wait reports the cube back in its state", async ({ fx }) => {
    const { db, snapshot } = await withSnapshot(fx);
    const run = await fx.cli(["snapshot", "restore", "db", "before-upgrade", "--wait", "--interval", "20ms", ...FAST], {
      ttyInput: "yes\n",
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Restoring cube "db" from snapshot "before-upgrade" (${snapshot.id}).`);
    expect(run.stdout).toContain('Cube "db" is running again, restored from snapshot "before-upgrade".');
    expect(restores(fx).map((r) => r.path)).toEqual([expect.stringContaining(`/cubes/${db.id}/restore`)]);
  });
});

describe("snapshot delete, backup share, power-off", () => {
  test("each refuses without a terminal unless --yes; with --yes it goes ahead", async ({ fx }) => {
    const { db } = await withSnapshot(fx);
    const before = fx.mutations();
    const del = await fx.cli(["snapshot", "delete", "db", "before-upgrade", ...FAST]);
    expect(del.stderr).toBe(
      'Error: refusing to delete snapshot "before-upgrade" of cube "db" without confirmation: stdin is not a terminal; pass --yes\n',
    );
    const off = await fx.cli(["cube", "power-off", "db", ...FAST]);
    expect(off.stderr).toBe('Error: refusing to power off cube "db" without confirmation: stdin is not a terminal; pass --yes\n');
    expect([del.exitCode, off.exitCode]).toEqual([1, 1]);
    expect(fx.mutations()).toBe(before);
    const deleted = await fx.cli(["snapshot", "delete", "db", "before-upgrade", "--yes", ...FAST]);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(await fx.api.listSnapshots(db.id)).toEqual([]);
    const powered = await fx.cli(["cube", "power-off", "db", "-y", ...FAST]);
    expect(powered.exitCode, powered.stderr).toBe(0);
    expect(powered.stdout).toContain('Cube "db" (');
  });

  test("backup share asks on a terminal and sends nothing on no", async ({ fx }) => {
    const db = await runningCube(fx, "db");
    fx.emulator.admin.createBackup({ cubeId: db.id, name: "nightly" });
    const before = fx.mutations();
    const run = await fx.cli(["backup", "share", "nightly", "--to", "spc_other", ...FAST], { ttyInput: "no\n" });
    expect(run.stdout).toMatch(
      /^Offer backup "nightly" to space spc_other\? Once it accepts, that space holds a copy of the disk\. \(yes\/no\) $/,
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe('Error: share backup "nightly" with space spc_other cancelled: nothing was changed\n');
    expect(fx.mutations()).toBe(before);
  });
});

test("a stop request (Ctrl-C, SIGTERM) at the question ends the command at once with 130, sending nothing", async ({ fx }) => {
  await withSnapshot(fx);
  const stdout = new Capture();
  const stderr = new Capture();
  const stdin = Object.assign(new PassThrough(), { isTTY: true }); // a terminal nobody types on
  const stop = new AbortController();
  const env = { XDG_STATE_HOME: testStateHome(), ...fx.env };
  const exit = main(["snapshot", "restore", "db", "before-upgrade", ...FAST], {
    stdout,
    stderr,
    stdin,
    env,
    cwd: fx.cwd,
    signal: stop.signal,
  });
  await waitFor(() => stdout.text.includes("(yes/no)"), { timeoutMs: 15_000 });
  stop.abort("SIGINT");
  expect(await exit).toBe(130);
  expect(stderr.text).toBe(
    'Error: restore cube "db" from snapshot "before-upgrade" cancelled at the prompt (SIGINT): nothing was changed\n',
  );
  expect(restores(fx)).toEqual([]);
});

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}
