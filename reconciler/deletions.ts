/**
 * Deletions under way, remembered per space on this machine. The API deletes a cube
 * asynchronously and lists it meanwhile (state "stopping", like a cube powering off), so a plan
 * made before the delete finished would count it as present and say the space matches. apply
 * waits for its deletes to finish; when it could not (a timeout, Ctrl-C), the cubes it asked to
 * delete are recorded here and a later plan leaves them out until the API no longer lists them.
 */
import { join } from "node:path";
import { fileKey } from "../system/dirs.js";
import { readRegularTextAsync, STATE_FILE, writeFileAtomic } from "../system/files.js";
import type { ObservedState } from "../engine/index.js";

/** After this, an entry is forgotten whatever the API says (a delete that never finished is the API's to report). */
export const DELETION_MEMORY_MS = 60 * 60 * 1000;

interface Entry {
  name: string;
  at: number;
}

type Entries = Record<string, Entry>;

export class DeletionLog {
  readonly path: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(stateDir: string, scope: string, spaceId: string) {
    this.path = join(stateDir, "deleting", `${fileKey(`${scope} ${spaceId}`)}.json`);
  }

  /** A DELETE of this cube was accepted by the API. */
  started(cubeId: string, name: string): Promise<void> {
    return this.update((entries) => {
      entries[cubeId] = { name, at: Date.now() };
      return { result: undefined, changed: true };
    });
  }

  /**
   * The observed state without the cubes whose deletion is under way, and their names. Entries
   * of cubes the API no longer lists are dropped. Nothing is written when nothing changes (a
   * plan's usual case: no deletion under way).
   */
  async exclude(observed: ObservedState): Promise<{ observed: ObservedState; deleting: string[] }> {
    const entries = await this.update((all) => {
      const ids = Object.keys(all);
      if (ids.length === 0) return { result: all, changed: false };
      const listed = new Set(observed.cubes.map((c) => c.cube.id));
      const gone = ids.filter((id) => !listed.has(id));
      for (const id of gone) delete all[id];
      return { result: { ...all }, changed: gone.length > 0 };
    });
    if (Object.keys(entries).length === 0) return { observed, deleting: [] };
    const deleting = observed.cubes.filter((c) => entries[c.cube.id] !== undefined);
    if (deleting.length === 0) return { observed, deleting: [] };
    return { observed: { ...observed, cubes: observed.cubes.filter((c) => entries[c.cube.id] === undefined) }, deleting: deleting.map((c) => c.cube.name) };
  }

  private update<T>(change: (entries: Entries) => { result: T; changed: boolean }): Promise<T> {
    const run = this.queue.then(async () => {
      const entries = await this.read();
      const { result, changed } = change(entries);
      if (!changed) return result;
      await writeFileAtomic(this.path, JSON.stringify(entries));
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async read(): Promise<Entries> {
    try {
      const parsed = JSON.parse(await readRegularTextAsync(this.path, STATE_FILE)) as Entries;
      const fresh: Entries = {};
      for (const [id, entry] of Object.entries(parsed)) if (typeof entry?.name === "string" && Date.now() - entry.at < DELETION_MEMORY_MS) fresh[id] = entry;
      return fresh;
    } catch {
      return {};
    }
  }
}
