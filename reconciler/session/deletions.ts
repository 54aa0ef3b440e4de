/**
 * Deletions under way, per space on this machine. The API lists a cube while it deletes it, so a plan made meanwhile would count it as present.
 * When apply could not wait for a delete (a timeout, Ctrl-C), the cube is recorded here and later plans leave it out until the API no longer lists it.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileKey } from "../../system/dirs.js";
import { tryOr } from "../../system/files.js";
import type { ObservedState } from "../../engine/index.js";
import { StateFile } from "./state-file.js";

/** After this, an entry is forgotten whatever the API says (a delete that never finished is the API's to report). */
export const DELETION_MEMORY_MS = 60 * 60 * 1000;

type Entry = { name: string; at: number };

const isFresh = (entry: unknown): entry is Entry => {
  const e = entry as Partial<Entry> | null;
  return typeof e?.name === "string" && typeof e.at === "number" && Date.now() - e.at < DELETION_MEMORY_MS;
};

export class DeletionLog {
  private journal: StateFile<Entry> | undefined;

  constructor(
    private readonly stateDir: string,
    private readonly scope: string,
    private readonly spaceId: string,
  ) {}

  /** Named when first used: a plan on a machine with no deletion under way names (hashes) nothing. */
  private get file(): StateFile<Entry> {
    if (this.journal === undefined) {
      const path = join(this.stateDir, "deleting", `${fileKey(`${this.scope} ${this.spaceId}`)}.json`);
      // Removed once empty: a plan then need not name one to find nothing under way.
      this.journal = new StateFile(path, isFresh, { removeWhenEmpty: true });
    }
    return this.journal;
  }

  /** No deletion is under way on this machine, in any space: this run has recorded none, and no journal is left. */
  private noneUnderWay(): boolean {
    return this.journal === undefined && tryOr(() => readdirSync(join(this.stateDir, "deleting")).length === 0, true);
  }

  /** A DELETE of this cube was accepted by the API. */
  async started(cubeId: string, name: string): Promise<void> {
    await this.file.update((entries) => {
      entries[cubeId] = { name, at: Date.now() };
    });
  }

  /**
   * The observed state without the cubes whose deletion is under way, and their names. Entries of cubes the API no longer lists are dropped, and a
   * journal left with none is removed; with no journal on the machine (a plan's usual case), nothing is read.
   */
  async exclude(observed: ObservedState): Promise<{ observed: ObservedState; deleting: string[] }> {
    if (this.noneUnderWay()) return { observed, deleting: [] };
    const entries = await this.file.update((all) => {
      if (Object.keys(all).length === 0) return true; // an empty journal (an earlier release kept them): removed
      const listed = new Set(observed.cubes.map((c) => c.cube.id));
      const gone = Object.keys(all).filter((id) => !listed.has(id));
      for (const id of gone) delete all[id];
      return gone.length > 0;
    });
    if (Object.keys(entries).length === 0) return { observed, deleting: [] };
    const deleting = observed.cubes.filter((c) => entries[c.cube.id] !== undefined);
    if (deleting.length === 0) return { observed, deleting: [] };
    return {
      observed: { ...observed, cubes: observed.cubes.filter((c) => entries[c.cube.id] === undefined) },
      deleting: deleting.map((c) => c.cube.name),
    };
  }
}
