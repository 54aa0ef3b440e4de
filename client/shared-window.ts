/**
 * The pacing window shared by the processes of one machine: the API counts mutations per
 * client IP, so two runs on one machine (a `watch` and a manual apply, two CI jobs on one
 * runner) must pace together. A small JSON file of grant times, read and written under a lock
 * file; one file per API origin, so two emulators on different ports do not share a window.
 *
 * The critical section is a read and a rename (well under a millisecond), so it is synchronous:
 * the pacer stays simple and the lock is held for no await.
 */
import { createHash, randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { WindowStore } from "./pacer.js";

type Env = NodeJS.ProcessEnv | Record<string, string | undefined>;

/**
 * The user's state directory for cubeform: $XDG_STATE_HOME/cubeform, else
 * $HOME/.local/state/cubeform (the XDG default), else the OS home directory's.
 */
export function machineStateDir(env: Env): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return join(xdg, "cubeform");
  const home = env.HOME?.trim() || homedir();
  return join(home, ".local", "state", "cubeform");
}

/** A short, filesystem-safe key for a string (an origin, a space). */
export function stateKey(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The window file of an API origin, e.g. https://krova.cloud or http://127.0.0.1:8123. */
export function pacingFileFor(stateDir: string, baseUrl: string): string {
  return join(stateDir, "pacing", `${stateKey(new URL(baseUrl).origin)}.json`);
}

interface Grant {
  id: string;
  at: number;
}

/** A lock file older than this is left over from a crash inside the critical section. */
const STALE_LOCK_MS = 5_000;
const LOCK_ATTEMPTS = 5_000;

const pause = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

export class FileWindowStore implements WindowStore {
  private readonly lockPath: string;

  constructor(readonly path: string) {
    this.lockPath = `${path}.lock`;
  }

  take(now: number, cutoff: number, limit: number): { id: string } | { times: number[] } {
    return this.update<{ id: string } | { times: number[] }>((grants) => {
      const live = grants.filter((g) => g.at > cutoff);
      if (live.length >= limit) return { grants: live, result: { times: live.map((g) => g.at).sort((a, b) => a - b) } };
      const id = randomUUID();
      return { grants: [...live, { id, at: now }], result: { id } };
    });
  }

  redate(id: string, at: number): void {
    this.update((grants) => ({ grants: grants.map((g) => (g.id === id ? { id, at: Math.max(g.at, at) } : g)), result: undefined }));
  }

  recent(cutoff: number): number[] {
    return this.read()
      .filter((g) => g.at > cutoff)
      .map((g) => g.at)
      .sort((a, b) => a - b);
  }

  private update<T>(change: (grants: Grant[]) => { grants: Grant[]; result: T }): T {
    this.lock();
    try {
      const { grants, result } = change(this.read());
      this.write(grants);
      return result;
    } finally {
      this.unlock();
    }
  }

  private read(): Grant[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.path, "utf8"));
    } catch {
      return [];
    }
    const grants = (parsed as { grants?: unknown } | null)?.grants;
    if (!Array.isArray(grants)) return [];
    return grants.filter((g): g is Grant => typeof g?.id === "string" && typeof g?.at === "number");
  }

  /** Atomic: a reader sees the old file or the new one. */
  private write(grants: Grant[]): void {
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ grants }), { mode: 0o600 });
    renameSync(temp, this.path);
  }

  private lock(): void {
    mkdirSync(join(this.path, ".."), { recursive: true });
    for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
      try {
        closeSync(openSync(this.lockPath, "wx", 0o600));
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      if (this.lockIsStale()) {
        try {
          unlinkSync(this.lockPath);
        } catch {
          // Another process removed it first.
        }
        continue;
      }
      sleepSync(1 + (attempt % 5));
    }
    throw new Error(`could not lock the shared pacing window ${this.path} (remove ${this.lockPath} if no cubeform runs)`);
  }

  private lockIsStale(): boolean {
    try {
      return Date.now() - statSync(this.lockPath).mtimeMs > STALE_LOCK_MS;
    } catch {
      return false;
    }
  }

  private unlock(): void {
    try {
      unlinkSync(this.lockPath);
    } catch {
      // Already gone: nothing to release.
    }
  }
}
