/**
 * The pacing window shared by a machine's processes (the API counts mutations per IP): a JSON file of grants per API origin,
 * under a lock file. Its critical section, a read and a rename, takes well under a millisecond: synchronous, it holds the lock
 * across no await.
 */
import { nodeCrypto } from "../system/builtins.js";
import { join } from "node:path";
import { fileKey, userDir, type Env } from "../system/dirs.js";
import { readRegularText, STATE_FILE, tryOr, writeFileAtomicSync } from "../system/files.js";
import { withLockSync } from "../system/lock.js";
import type { WindowStore } from "./pacer.js";
import { takeFrom, timesAfter, type Grant, type Taken } from "../system/concurrency.js";

export function machineStateDir(env: Env): string {
  return userDir(env, "state");
}

/** The window file of an API origin, e.g. https://krova.cloud or http://127.0.0.1:8123. */
export function pacingFileFor(stateDir: string, baseUrl: string): string {
  return join(stateDir, "pacing", `${fileKey(new URL(baseUrl).origin)}.json`);
}

export class FileWindowStore implements WindowStore {
  private named: string | undefined;

  /** `path`, or what names it the first time the window is read (a plan that paces nothing does not name it). */
  constructor(private readonly pathOf: string | (() => string)) {}

  get path(): string {
    return (this.named ??= typeof this.pathOf === "string" ? this.pathOf : this.pathOf());
  }

  take(now: number, cutoff: number, limit: number): Taken {
    return this.update((grants) => takeFrom(grants, now, cutoff, limit, () => nodeCrypto().randomUUID()));
  }

  redate(id: string, at: number): void {
    this.update((grants) => ({ grants: grants.map((g) => (g.id === id ? { id, at: Math.max(g.at, at) } : g)), result: undefined }));
  }

  recent(cutoff: number): number[] {
    return timesAfter(this.read(), cutoff);
  }

  private update<T>(change: (grants: Grant[]) => { grants: Grant[]; result: T }): T {
    return withLockSync(`${this.path}.lock`, () => {
      const { grants, result } = change(this.read());
      writeFileAtomicSync(this.path, JSON.stringify({ grants }));
      return result;
    });
  }

  private read(): Grant[] {
    const parsed: unknown = tryOr(() => JSON.parse(readRegularText(this.path, STATE_FILE)), undefined);
    const grants = (parsed as { grants?: unknown } | null)?.grants;
    if (!Array.isArray(grants)) return [];
    return grants.filter((g): g is Grant => typeof g?.id === "string" && typeof g?.at === "number");
  }
}
