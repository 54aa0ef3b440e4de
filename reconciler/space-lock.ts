/**
 * One writer per space on this machine: `apply` (and `watch --apply`) hold a lock file per
 * space in the user's state directory while they plan and apply. Per machine, not per working
 * directory: two checkouts or two CI jobs on one runner serialize too. Across machines the lock
 * cannot help; the README says how to serialize there (a CI concurrency group).
 *
 * The lock file holds who took it (pid, host, command, time). A lock whose process is gone
 * (same host, pid not alive) is stale and taken over; any other holder is waited for, up to a
 * timeout.
 */
import { randomUUID } from "node:crypto";
import { link, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { stateKey } from "../client/shared-window.js";
import { CliError } from "./errors.js";

export interface LockOwner {
  token: string;
  pid: number;
  host: string;
  command: string;
  cwd: string;
  startedAt: string;
}

export interface LockRequest {
  stateDir: string;
  /** The API's origin and the space: one lock per space of one API. */
  origin: string;
  spaceId: string;
  command: string;
  cwd: string;
  timeoutMs: number;
  /** Called once when the lock is held by another run and this one starts waiting. */
  onWait?: (owner: LockOwner | undefined, path: string) => void;
  signal?: AbortSignal;
  pollMs?: number;
}

export interface HeldLock {
  path: string;
  release(): Promise<void>;
}

export function lockPathFor(stateDir: string, origin: string, spaceId: string): string {
  return join(stateDir, "locks", `${stateKey(`${origin} ${spaceId}`)}.lock`);
}

export async function acquireSpaceLock(request: LockRequest): Promise<HeldLock> {
  const path = lockPathFor(request.stateDir, request.origin, request.spaceId);
  await mkdir(join(request.stateDir, "locks"), { recursive: true });
  const owner: LockOwner = { token: randomUUID(), pid: process.pid, host: hostname(), command: request.command, cwd: request.cwd, startedAt: new Date().toISOString() };
  const deadline = Date.now() + request.timeoutMs;
  let told = false;
  for (;;) {
    if (await tryCreate(path, owner)) return { path, release: () => releaseIfOurs(path, owner.token) };
    const holder = await readOwner(path);
    if (holder !== undefined && isStale(holder)) {
      await takeOverStale(path, holder);
      continue;
    }
    if (request.signal?.aborted) throw new CliError("stopped", "stopped while waiting for the lock of the space: nothing was sent", 130);
    if (Date.now() >= deadline) throw lockTimeout(request, holder, path);
    if (!told) request.onWait?.(holder, path);
    told = true;
    await pause(Math.min(request.pollMs ?? 200, Math.max(1, deadline - Date.now())), request.signal);
  }
}

/** Written beside, then linked into place: a lock file is never seen empty or half-written. */
async function tryCreate(path: string, owner: LockOwner): Promise<boolean> {
  const draft = `${path}.${process.pid}.${owner.token}.new`;
  await writeFile(draft, `${JSON.stringify(owner)}\n`, { encoding: "utf8", mode: 0o600 });
  try {
    await link(draft, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as Partial<LockOwner>;
    if (typeof parsed.token === "string" && typeof parsed.pid === "number" && typeof parsed.host === "string") return parsed as LockOwner;
  } catch {
    // Being written, or gone: the next round reads it again.
  }
  return undefined;
}

/** Same host and the process is gone. A lock of another host is never judged stale. */
export function isStale(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Moves the stale file aside (atomic: one of two runs that both found it stale wins). If what
 * was moved is not the stale lock read before (a third run took the lock meanwhile), it is put
 * back with link(), which never overwrites.
 */
async function takeOverStale(path: string, stale: LockOwner): Promise<void> {
  const aside = `${path}.${process.pid}.${randomUUID()}.stale`;
  try {
    await rename(path, aside);
  } catch {
    return;
  }
  const moved = await readOwner(aside);
  if (moved !== undefined && moved.token !== stale.token) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

async function releaseIfOurs(path: string, token: string): Promise<void> {
  const owner = await readOwner(path);
  if (owner?.token === token) await unlink(path).catch(() => undefined);
}

function lockTimeout(request: LockRequest, holder: LockOwner | undefined, path: string): CliError {
  const who = holder ? describeOwner(holder) : "another cubeform run";
  return new CliError(
    "lock_timeout",
    `another run holds the lock of space ${request.spaceId}: ${who}; gave up after ${Math.round(request.timeoutMs / 1000)} s. Wait for it to finish, or raise --lock-timeout; if no such run exists, delete ${path}. Nothing was sent`,
  );
}

export function describeOwner(owner: LockOwner): string {
  return `\`cubeform ${owner.command}\` (pid ${owner.pid} on ${owner.host}, in ${owner.cwd}, since ${owner.startedAt})`;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
