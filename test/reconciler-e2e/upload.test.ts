/**
 * `cubeform upload ARCHIVE` through the bin: a multi-part .cube archive becomes a cube that
 * boots; Ctrl-C cancels the import (nothing left behind); bad input changes nothing.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { describeRun, project, RATE, SSH_KEY, waitFor } from "./support.js";

const MIB = 1024 * 1024;
/** An archive of no known backup needs its size (issue 22 item 4). */
const SIZE = ["--vcpu", "1", "--ram-gb", "1", "--disk-gb", "10"];

describe("cubeform upload", () => {
  test("a multi-part archive becomes a new cube that boots (--wait, --format json)", async () => {
    const p = await project();
    writeFileSync(join(p.cwd, "web.cube"), randomBytes(4 * MIB + 123));
    const run = await p.run([
      "upload",
      "web.cube",
      "--name",
      "restored",
      "--ssh-key",
      SSH_KEY,
      ...SIZE,
      "--concurrency",
      "2",
      "--wait",
      "--interval",
      "50ms",
      "--format",
      "json",
      ...RATE,
    ]);
    expect(run.code, describeRun(run)).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      importId: expect.stringMatching(/^imp_/),
      cubeId: expect.stringMatching(/^cube_/),
      status: "provisioning",
      cube: { name: "restored", state: "running" },
    });
    expect(run.stderr).toMatch(/import imp_\w+: 5 parts of 1\.0 MiB, 2 at a time/);
    expect((await p.api.getCube(result.cubeId)).state).toBe("running");
    const puts = p.emu.admin
      .requests()
      .filter((r) => r.mutating)
      .map((r) => `${r.method} ${r.path.replace(/.*\/cubes/, "/cubes")}`);
    expect(puts).toEqual(["POST /cubes/imports", `POST /cubes/imports/${result.importId}/complete`]);
    await waitFor(async () => ((await p.api.getImport(result.importId)).status === "complete" ? true : undefined));
  });

  test("Ctrl-C during the upload cancels the import: nothing is left behind (exit 130)", async () => {
    const p = await project();
    writeFileSync(join(p.cwd, "big.cube"), randomBytes(6 * MIB));
    p.emu.admin.setStorageRate(512 * 1024);
    const child = p.start(["upload", "big.cube", "--name", "big", "--ssh-key", SSH_KEY, ...SIZE, ...RATE]);
    const importId = await waitFor(() => /import (imp_\w+):/.exec(child.stderr())?.[1], {
      timeoutMs: 20_000,
      message: "the import to start",
    });
    await waitFor(() => (/uploading big\.cube .*[1-9]\d*\.\d (KiB|MiB)/.test(child.stderr()) ? true : undefined), {
      timeoutMs: 20_000,
      message: "some bytes sent",
    });
    child.process.kill("SIGINT");
    const done = await child.exited;
    expect(done.code, describeRun(done)).toBe(130);
    expect(done.stderr).toContain(`upload stopped; import ${importId} was canceled; nothing was created`);
    await expect(p.api.getImport(importId)).rejects.toMatchObject({ code: "not_found" });
    expect(await p.api.listCubes()).toEqual([]);
  }, 40_000);

  test("bad input is one clear line, exit 1, and sends nothing", async () => {
    const p = await project();
    writeFileSync(join(p.cwd, "small.cube"), randomBytes(1000));
    writeFileSync(join(p.cwd, "ok.cube"), randomBytes(MIB));
    const cases: [string[], RegExp][] = [
      [["upload", "missing.cube", "--name", "x", "--ssh-key", SSH_KEY], /cannot read missing\.cube: no such file/],
      [["upload", "small.cube", "--name", "x", "--ssh-key", SSH_KEY], /small\.cube is 1000 bytes; a \.cube archive is at least 1 MiB/],
      [["upload", "ok.cube", "--name", "x"], /no SSH key for the new cube: pass --ssh-key/],
      [
        ["upload", "ok.cube", "--name", "x", "--ssh-key", "nope.pub"],
        /--ssh-key: "nope\.pub" is neither an OpenSSH public key nor a readable file/,
      ],
      [["upload", "ok.cube", "--name", "x", "--ssh-key", SSH_KEY, "--disk-gb", "12"], /invalid option --disk-gb: a multiple of 5/],
      [["upload", "ok.cube", "--ssh-key", SSH_KEY], /required option '--name <name>'/],
    ];
    for (const [args, message] of cases) {
      const run = await p.run([...args, ...RATE]);
      expect(run.code, describeRun(run)).toBe(1);
      expect(run.stderr, args.join(" ")).toMatch(message);
    }
    expect(p.mutations()).toBe(0);
  });

  test("an archive `backup download` saved gets the size of the cube it was made from; differing flags are a warning (issue 22 item 4)", async () => {
    const p = await project();
    const db = await p.api.createCube(
      { name: "db", image: "debian-13", resources: { vcpu: 2, ramGb: 8, diskGb: 40 }, sshPublicKey: SSH_KEY },
      { idempotencyKey: "db" },
    );
    p.emu.admin.createBackup({ cubeId: db.id, name: "nightly", sizeBytes: 2 * MIB + 7 });
    expect((await p.run(["backup", "download", "nightly", "--out", "db.cube", ...RATE])).code).toBe(0);

    const same = await p.run(["upload", "db.cube", "--name", "copy", "--ssh-key", SSH_KEY, "--format", "json", ...RATE]);
    expect(same.code, describeRun(same)).toBe(0);
    expect(same.stderr).toContain(
      'db.cube was made from a 2 vCPU / 8 GB RAM / 40 GB disk (debian-13) cube (backup "nightly"): the new cube gets the same.',
    );
    const copy = await p.api.getCube(JSON.parse(same.stdout).cubeId);
    expect([copy.resources, copy.image]).toEqual([{ vcpu: 2, ramGb: 8, diskGb: 40 }, "debian-13"]);

    const smaller = await p.run(["upload", "db.cube", "--name", "small", "--ssh-key", SSH_KEY, "--vcpu", "1", "--format", "json", ...RATE]);
    expect(smaller.code, describeRun(smaller)).toBe(0);
    expect(smaller.stderr).toContain(
      'warning: db.cube was made from a 2 vCPU / 8 GB RAM / 40 GB disk (debian-13) cube (backup "nightly"), but the new cube gets 1 vCPU / 8 GB RAM / 40 GB disk (debian-13), as the flags ask.',
    );
    expect((await p.api.getCube(JSON.parse(smaller.stdout).cubeId)).resources).toEqual({ vcpu: 1, ramGb: 8, diskGb: 40 });
  });

  test("an archive of no known backup needs the size flags, and without them sends nothing (issue 22 item 4)", async () => {
    const p = await project();
    writeFileSync(join(p.cwd, "other.cube"), randomBytes(MIB + 3));
    const run = await p.run(["upload", "other.cube", "--name", "x", "--ssh-key", SSH_KEY, "--ram-gb", "2", ...RATE]);
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toBe(
      `Error: the size of the cube other.cube was made from is not known (the API reads none from an archive, and no backup of this space has its ${MIB + 3} bytes): pass --vcpu, --disk-gb\n`,
    );
    expect(p.mutations()).toBe(0);
  });

  test("--help says how upload differs from import, and import's help says it back", async () => {
    const p = await project();
    expect((await p.run(["upload", "--help"])).stdout).toMatch(/Not the same as `cubeform import -O FILE`/);
    expect((await p.run(["import", "--help"])).stdout).toMatch(/Not the same as `cubeform upload ARCHIVE\.cube`/);
  });
});
