/**
 * One writer per space on this machine: apply and watch --apply hold a lock per space (per machine: other HOMEs, checkouts and CI jobs on one runner
 * serialize too; across machines see the README). The lock names its holder; one whose process is gone is taken over (system/lock.ts).
 */
import { join } from "node:path";
import { fileKey, machineDir } from "../../system/dirs.js";
import { acquireLock, LockTimeout, LockWaitStopped, type HeldLock, type LockOwner } from "../../system/lock.js";
import { CliError } from "../errors.js";

export type { HeldLock, LockOwner };

export interface LockRequest {
  /** Where the lock files are: this machine's (the default), or a test's own. */
  lockDir?: string;
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

export function lockPathFor(lockDir: string, origin: string, spaceId: string): string {
  return join(lockDir, `${fileKey(`${origin} ${spaceId}`)}.lock`);
}

export async function acquireSpaceLock(request: LockRequest): Promise<HeldLock> {
  const path = lockPathFor(request.lockDir ?? join(machineDir(), "locks"), request.origin, request.spaceId);
  const { command, cwd, timeoutMs, onWait, signal, pollMs } = request;
  try {
    return await acquireLock(path, {
      timeoutMs,
      about: { command, cwd },
      ...(onWait ? { onWait } : {}),
      ...(signal ? { signal } : {}),
      ...(pollMs ? { pollMs } : {}),
    });
  } catch (e) {
    if (e instanceof LockWaitStopped)
      throw new CliError("stopped", "stopped while waiting for the lock of the space: nothing was sent", 130);
    if (e instanceof LockTimeout) throw lockTimeout(request, e.holder, path);
    throw e;
  }
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
