/** One lock algorithm for the space lock and the pacing window: a dead holder's lock is taken over at once. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { acquireLock, LockTimeout, withLockSync } from "../../system/lock.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function lockPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-lockfile-"));
  dirs.push(dir);
  return join(dir, "space.lock");
}

/** A pid that was alive a moment ago and is not now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

function plantHolder(path: string, pid: number, startedAt = new Date().toISOString()): void {
  writeFileSync(path, JSON.stringify({ token: "theirs", pid, host: hostname(), startedAt, command: "apply", cwd: "/elsewhere" }));
}

test("a lock whose holder is gone is taken over at once, by the async and the sync lock alike", async () => {
  const path = lockPath();
  plantHolder(path, deadPid());
  const held = await acquireLock(path, { timeoutMs: 0 });
  await held.release();
  expect(existsSync(path)).toBe(false);
  plantHolder(path, deadPid());
  expect(withLockSync(path, () => "ran")).toBe("ran");
  expect(existsSync(path)).toBe(false);
});

test("a live holder makes a run wait and then give up, naming the holder; the holder's lock stays", async () => {
  const path = lockPath();
  plantHolder(path, process.ppid);
  const waited: unknown[] = [];
  const error = await acquireLock(path, { timeoutMs: 300, pollMs: 20, onWait: (holder) => waited.push(holder) }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(LockTimeout);
  expect((error as LockTimeout).holder).toMatchObject({ pid: process.ppid, command: "apply", cwd: "/elsewhere" });
  expect(waited).toHaveLength(1);
  expect(existsSync(path)).toBe(true);
});

test("the pacing window's lock: a live holder older than the longest hold is stale", () => {
  const path = lockPath();
  plantHolder(path, process.ppid, new Date(Date.now() - 60_000).toISOString());
  expect(withLockSync(path, () => "ran", 5_000)).toBe("ran");
});
