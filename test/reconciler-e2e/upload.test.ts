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

describe("cubeform upload", () => {
  test("a multi-part archive becomes a new cube that boots (--wait, --format json)", async () => {
    const p = await project();
    writeFileSync(join(p.cwd, "web.cube"), randomBytes(4 * MIB + 123));
    const run = await p.run(["upload", "web.cube", "--name", "restored", "--ssh-key", SSH_KEY, "--concurrency", "2", "--wait", "--interval", "50ms", "--format", "json", ...RATE]);
    expect(run.code, describeRun(run)).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ importId: expect.stringMatching(/^imp_/), cubeId: expect.stringMatching(/^cube_/), status: "provisioning", cube: { name: "restored", state: "running" } });
    expect(run.stderr).toMatch(/import imp_\w+: 5 parts of 1\.0 MiB, 2 at a time/);
    expect((await p.api.getCube(result.cubeId)).state).toBe("running");
    const puts = p.emu.admin.requests().filter((r) => r.mutating).map((r) => `${r.method} ${r.path.replace(/.*\/cubes/, "/cubes")}`);
    expect(puts).toEqual(["POST /cubes/imports", `POST /cubes/imports/${result.importId}/complete`]);
    await waitFor(async () => ((await p.api.getImport(result.importId)).status === "complete" ? true : undefined));
  });

  test("Ctrl-C during the upload cancels the import: nothing is left behind (exit 130)", async () => {
    const p = await project();
    writeFileSync(join(p.cwd, "big.cube"), randomBytes(6 * MIB));
    p.emu.admin.setStorageRate(512 * 1024);
    const child = p.start(["upload", "big.cube", "--name", "big", "--ssh-key", SSH_KEY, ...RATE]);
    const importId = await waitFor(() => /import (imp_\w+):/.exec(child.stderr())?.[1], { timeoutMs: 20_000, message: "the import to start" });
    await waitFor(() => (/uploading big\.cube .*[1-9]\d*\.\d (KiB|MiB)/.test(child.stderr()) ? true : undefined), { timeoutMs: 20_000, message: "some bytes sent" });
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
      [["upload", "ok.cube", "--name", "x", "--ssh-key", "nope.pub"], /--ssh-key: "nope\.pub" is neither an OpenSSH public key nor a readable file/],
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

  test("--help says how upload differs from import, and import's help says it back", async () => {
    const p = await project();
    expect((await p.run(["upload", "--help"])).stdout).toMatch(/Not the same as `cubeform import -o FILE`/);
    expect((await p.run(["import", "--help"])).stdout).toMatch(/Not the same as `cubeform upload ARCHIVE\.cube`/);
  });
});
