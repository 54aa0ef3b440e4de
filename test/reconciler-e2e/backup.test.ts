/**
 * `cubeform backup …` through the bin against the emulator: list, download (byte-identical,
 * and resumed after an interrupted run), share to a second space and accept there, and bad
 * input that changes nothing (live-api-facts.md §4).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createClient } from "../../client/index.js";
import { createPlainCube, describeRun, project, RATE, waitFor, type Project } from "./support.js";

async function cubeAndBackup(p: Project, sizeBytes: number, name = "nightly") {
  const cube = await createPlainCube(p.api, "db", `create-${name}`);
  return p.emu.admin.createBackup({ cubeId: cube.id, name, sizeBytes });
}

/**
 * `backup download NAME --out OUT` slowed down, stopped by `signal` once OUT.part holds 1 MiB; the storage's speed is
 * back to normal after. Resolves with the .part's path.
 */
async function interruptedDownload(p: Project, name: string, out: string, signal: NodeJS.Signals): Promise<string> {
  p.emu.admin.setStorageRate(2 * 1024 * 1024);
  const part = join(p.cwd, `${out}.part`);
  const child = p.start(["backup", "download", name, "--out", out, ...RATE]);
  await waitFor(() => (existsSync(part) && statSync(part).size >= 1024 * 1024 ? true : undefined), {
    timeoutMs: 20_000,
    message: "a partial download",
  });
  child.process.kill(signal);
  await child.exited;
  p.emu.admin.setStorageRate(null);
  return part;
}

async function archiveOf(p: Project, backupId: string): Promise<Buffer> {
  const { url } = await p.api.getBackupDownload(backupId);
  return Buffer.from(await (await fetch(url)).arrayBuffer());
}

describe("cubeform backup", () => {
  test("§4: list and show by name; download streams a byte-identical archive to --out (text and json)", async () => {
    const p = await project();
    const backup = await cubeAndBackup(p, 3 * 1024 * 1024 + 7);
    const list = await p.run(["backup", "list", ...RATE]);
    expect(list.code, describeRun(list)).toBe(0);
    expect(list.stdout).toMatch(/^NAME +ID +STATUS +SIZE/m);
    expect(list.stdout).toMatch(new RegExp(`^nightly +${backup.id} +complete +3\\.0 MiB +db `, "m"));
    const json = await p.run(["backup", "list", "--format", "json", ...RATE]);
    expect(JSON.parse(json.stdout).map((b: { id: string }) => b.id)).toEqual([backup.id]);
    const show = await p.run(["backup", "show", "nightly", ...RATE]);
    expect(show.stdout).toContain(`${backup.id}`);
    expect(show.stdout).toMatch(/from cube: +db/);
    const download = await p.run(["backup", "download", "nightly", "--out", "copy.cube", "--format", "json", ...RATE]);
    expect(download.code, describeRun(download)).toBe(0);
    expect(JSON.parse(download.stdout)).toMatchObject({ backupId: backup.id, bytes: 3 * 1024 * 1024 + 7, resumedFrom: 0 });
    expect(readFileSync(join(p.cwd, "copy.cube")).equals(await archiveOf(p, backup.id))).toBe(true);
    expect(existsSync(join(p.cwd, "copy.cube.part"))).toBe(false);
    // The default name comes from the API; an existing file is not overwritten without --force.
    const again = await p.run(["backup", "download", backup.id, "--out", "copy.cube", ...RATE]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/copy\.cube already exists; pass --force/);
    const named = await p.run(["backup", "download", backup.id, ...RATE]);
    expect(named.code, describeRun(named)).toBe(0);
    expect(statSync(join(p.cwd, "nightly.cube")).size).toBe(3 * 1024 * 1024 + 7);
  });

  test("Ctrl-C during a download keeps FILE.part; the next run resumes from it (Range) and the file is byte-identical", async () => {
    const p = await project();
    const size = 6 * 1024 * 1024;
    const backup = await cubeAndBackup(p, size);
    const part = await interruptedDownload(p, "nightly", "big.cube", "SIGINT");
    const kept = statSync(part).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(size);
    expect(existsSync(join(p.cwd, "big.cube"))).toBe(false);
    const resumed = await p.run(["backup", "download", "nightly", "--out", "big.cube", ...RATE]);
    expect(resumed.code, describeRun(resumed)).toBe(0);
    expect(resumed.stderr).toContain("resuming from");
    expect(resumed.stdout).toContain(`resumed from ${kept}`);
    expect(readFileSync(join(p.cwd, "big.cube")).equals(await archiveOf(p, backup.id))).toBe(true);
  }, 40_000);

  test("issue 20 #1: a .part of one backup (the run killed halfway) is never spliced into another: the other is downloaded whole, and the run says it started over", async () => {
    const p = await project();
    const size = 6 * 1024 * 1024;
    await cubeAndBackup(p, size, "nightly");
    const other = await p.emu.admin.createBackup({ cubeId: (await p.api.listCubes())[0]!.id, name: "other", sizeBytes: size });
    const part = await interruptedDownload(p, "nightly", "latest.cube", "SIGKILL");
    expect(statSync(part).size).toBeLessThan(size);
    const second = await p.run(["backup", "download", "other", "--out", "latest.cube", "--format", "json", ...RATE]);
    expect(second.code, describeRun(second)).toBe(0);
    expect(second.stderr).toMatch(/starting over: the \d+ bytes in .*latest\.cube\.part were not used: it holds another backup/);
    expect(second.stderr).not.toContain("resuming from");
    expect(JSON.parse(second.stdout)).toMatchObject({
      backupId: other.id,
      bytes: size,
      resumedFrom: 0,
      startedOver: expect.stringContaining("another backup"),
    });
    const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");
    expect(sha256(readFileSync(join(p.cwd, "latest.cube")))).toBe(sha256(await archiveOf(p, other.id)));
    expect(existsSync(join(p.cwd, "latest.cube.part.json"))).toBe(false);
  }, 40_000);

  test("issue 20 #3: --out in a folder that does not exist says so, promises no resume and leaves no .part", async () => {
    const p = await project();
    await cubeAndBackup(p, 1024 * 1024);
    const run = await p.run(["backup", "download", "nightly", "--out", "missing/dir/copy.cube", ...RATE]);
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toMatch(/the folder .*missing\/dir does not exist; nothing was downloaded/);
    expect(run.stderr).not.toMatch(/resume/);
    expect(existsSync(join(p.cwd, "missing"))).toBe(false);
  });

  test("§4: share to a second space, see it from both sides, accept it there: the copy has sharedFromBackupId", async () => {
    const p = await project();
    const backup = await cubeAndBackup(p, 2 * 1024 * 1024);
    const dest = p.emu.admin.createSpace({ name: "staging" });
    const destEnv = { CUBE_API_KEY: dest.ownerKey };
    const share = await p.run(["backup", "share", "nightly", "--to", dest.spaceId, "--yes", "--format", "json", ...RATE]);
    expect(share.code, describeRun(share)).toBe(0);
    const offered = JSON.parse(share.stdout);
    expect(offered).toMatchObject({ status: "pending", backupId: backup.id, destinationSpaceId: dest.spaceId });
    const outgoing = await p.run(["backup", "shares", ...RATE]);
    expect(outgoing.stdout).toMatch(new RegExp(`^outgoing +${offered.id} +nightly +${dest.spaceId} +staging +pending`, "m"));
    const incoming = await p.run(["backup", "shares", ...RATE], destEnv);
    expect(incoming.stdout).toMatch(new RegExp(`^incoming +${offered.id} +nightly +${p.emu.spaceId}`, "m"));
    const accepted = await p.run(["backup", "accept", offered.id, ...RATE], destEnv);
    expect(accepted.code, describeRun(accepted)).toBe(0);
    expect(accepted.stdout).toMatch(/Accepted share .*backup "nightly" \(bkp_\w+\) is now in this space/);
    const destApi = createClient({ baseUrl: p.emu.url, apiKey: dest.ownerKey, rateLimit: { limit: 1000, windowMs: 60_000 } });
    const [copy] = await destApi.listBackups();
    await destApi.close();
    expect(copy).toMatchObject({ name: "nightly", sharedFromBackupId: backup.id });
    expect((await p.run(["backup", "shares", ...RATE])).stdout).toContain("No pending backup shares.");
  });

  test("bad input gets one clear line, exit 1, and sends nothing", async () => {
    const p = await project();
    await cubeAndBackup(p, 1024 * 1024);
    await cubeAndBackup(p, 1024 * 1024, "twin");
    await cubeAndBackup(p, 1024 * 1024, "twin");
    const before = p.mutations();
    const cases: [string[], RegExp][] = [
      [["backup", "show", "nope"], /no backup named \(or with id\) "nope" in this space/],
      [["backup", "download", "twin"], /2 backups are named "twin" .*name one by its id/],
      [["backup", "share", "nightly", "--to", p.emu.spaceId], /is this backup's own space/],
      [["backup", "share", "nightly"], /required option '--to <space>'/],
      [["backup", "list", "--format", "xml"], /argument 'xml' is invalid/],
      [["backup", "accept", "shr_nope"], /Backup share not found/],
    ];
    for (const [args, message] of cases) {
      const run = await p.run([...args, ...RATE]);
      expect(run.code, describeRun(run)).toBe(1);
      expect(run.stderr, args.join(" ")).toMatch(message);
      expect(
        run.stderr
          .trim()
          .split("\n")
          .filter((l) => !l.startsWith("(run with")).length,
        args.join(" "),
      ).toBe(1);
    }
    // Only the refused accept reached the API as a mutation; nothing changed.
    expect(p.mutations() - before).toBe(1);
  });
});
