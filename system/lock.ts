/**
 * Lock files: the space lock (held for an apply) and the pacing window's (for a read and a rename). The lock file is written
 * beside and linked into place (never seen empty, never replaced), names its holder, and is taken over when that process is
 * gone. proper-lockfile judges staleness by mtime: a killed run's lock would block the next for seconds, and a busy event loop
 * would lose a held lock.
 */
import { nodeCrypto, nodeOs } from "./builtins.js";
import { linkSync, renameSync } from "node:fs";
import { readRegularText, tryOr, unlinkQuietly, writeFileAtomicSync, type ReadLimit } from "./files.js";
import { sleep, sleepSync } from "./time.js";

export interface LockOwner {
  token: string;
  pid: number;
  host: string;
  startedAt: string;
  /** What the holder is doing, for the message of a run that waits (e.g. command, cwd). */
  command?: string;
  cwd?: string;
}

export interface HeldLock {
  path: string;
  release(): Promise<void>;
}

export interface LockOptions {
  timeoutMs: number;
  about?: { command?: string; cwd?: string };
  /** Called once, when another holder makes this run wait. */
  onWait?: (holder: LockOwner | undefined, path: string) => void;
  signal?: AbortSignal;
  pollMs?: number;
}

export class LockTimeout extends Error {
  readonly code = "lock_timeout";
  constructor(
    readonly path: string,
    readonly holder: LockOwner | undefined,
  ) {
    super(`${path} is held by ${holder ? `pid ${holder.pid} on ${holder.host}` : "another process"}`);
  }
}

export class LockWaitStopped extends Error {
  readonly code = "stopped";
}

/** Waits up to `timeoutMs` (polling) for the lock; resolves with it held. */
export async function acquireLock(path: string, options: LockOptions): Promise<HeldLock> {
  const owner = newOwner(options.about);
  const deadline = Date.now() + options.timeoutMs;
  let told = false;
  for (;;) {
    const holder = tryTake(path, owner);
    if (holder === TAKEN) return { path, release: async () => releaseIfOurs(path, owner.token) };
    if (options.signal?.aborted) throw new LockWaitStopped(`stopped while waiting for ${path}`);
    if (Date.now() >= deadline) throw new LockTimeout(path, holder);
    if (!told) options.onWait?.(holder, path);
    told = true;
    await sleep(Math.min(options.pollMs ?? 200, Math.max(1, deadline - Date.now())), options.signal);
  }
}

const SYNC_ATTEMPTS = 5_000;

/** Runs `critical` (synchronous, short) under the lock; a holder older than `maxHoldMs` is stale too. */
export function withLockSync<T>(path: string, critical: () => T, maxHoldMs = 5_000): T {
  const owner = newOwner();
  for (let attempt = 0; ; attempt++) {
    const holder = tryTake(path, owner, maxHoldMs);
    if (holder === TAKEN) break;
    if (attempt >= SYNC_ATTEMPTS) throw new LockTimeout(path, holder);
    sleepSync(1 + (attempt % 5));
  }
  try {
    return critical();
  } finally {
    releaseIfOurs(path, owner.token);
  }
}

const TAKEN = Symbol("taken");

/** Takes the lock (TAKEN) or names who holds it; a stale holder is moved aside first. */
function tryTake(path: string, owner: LockOwner, maxHoldMs?: number): typeof TAKEN | LockOwner | undefined {
  for (let round = 0; ; round++) {
    if (createLockFile(path, owner)) return TAKEN;
    const holder = readOwner(path);
    if (round > 0 || holder === undefined || !isStale(holder, maxHoldMs)) return holder;
    takeOverStale(path, holder);
  }
}

function newOwner(about: LockOptions["about"] = {}): LockOwner {
  return { token: nodeCrypto().randomUUID(), pid: process.pid, host: nodeOs().hostname(), startedAt: new Date().toISOString(), ...about };
}

function createLockFile(path: string, owner: LockOwner): boolean {
  try {
    writeFileAtomicSync(path, `${JSON.stringify(owner)}\n`, { overwrite: false });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
}

/** A lock file holds one owner (token, pid, host, start): well under a kilobyte. */
const LOCK_OWNER: ReadLimit = { maxBytes: 64 * 1024, what: "a lock file" };

export function readOwner(path: string): LockOwner | undefined {
  // Gone meanwhile: the next round tries again.
  const parsed = tryOr(() => JSON.parse(readRegularText(path, LOCK_OWNER)) as Partial<LockOwner> | null, undefined);
  return typeof parsed?.token === "string" && typeof parsed.pid === "number" && typeof parsed.host === "string"
    ? (parsed as LockOwner)
    : undefined;
}

/** Its process is gone (same host), or it has held longer than any holder may. Another host's lock is never stale. */
export function isStale(owner: LockOwner, maxHoldMs?: number): boolean {
  if (owner.host !== nodeOs().hostname() || owner.pid === process.pid) return false;
  if (maxHoldMs !== undefined && Date.now() - Date.parse(owner.startedAt) > maxHoldMs) return true;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Moves the stale file aside (atomic: of two runs that found it stale, one moves it); if what was moved is not the stale lock
 * (a third run took it meanwhile), it is linked back, which never overwrites.
 */
function takeOverStale(path: string, stale: LockOwner): void {
  const aside = `${path}.${process.pid}.${nodeCrypto().randomUUID()}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  const moved = readOwner(aside);
  try {
    if (moved !== undefined && moved.token !== stale.token) linkSync(aside, path);
  } catch {
    // Someone else holds it now: theirs stays.
  }
  unlinkQuietly(aside);
}

function releaseIfOurs(path: string, token: string): void {
  if (readOwner(path)?.token === token) unlinkQuietly(path);
}
