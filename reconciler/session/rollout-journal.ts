/**
 * The rollout journal (.cubeform/rollouts.json): each group's batch in flight (its members, what they ran before, and the phase), written before
 * the batch touches a member and cleared once it is healthy or put back. A run killed mid-batch leaves it here; the next plan checks those members
 * first, and can put them back on what they ran, so a crash never leaves more than a batch down or a member unchecked.
 */
import type { RolloutBatchStep, RolloutRecord } from "../../engine/types.js";
import type { RolloutPhase } from "../../engine/index.js";
import { StateFile } from "./state-file.js";

type Entry = RolloutRecord & { spaceId: string; at: string };

const PHASES = new Set(["replacing", "checking", "healthy", "failed", "reverted"]);

function isEntry(value: unknown): value is Entry {
  const v = value as Partial<Entry> | null;
  return (
    typeof v?.spaceId === "string" &&
    typeof v.group === "string" &&
    typeof v.batch === "number" &&
    PHASES.has(String(v.phase)) &&
    Array.isArray(v.members)
  );
}

export class RolloutJournal {
  private readonly file: StateFile<Entry>;

  constructor(path: string) {
    this.file = new StateFile(path, isEntry);
  }

  /** The batches in flight in this space. */
  async records(spaceId: string): Promise<RolloutRecord[]> {
    return Object.values(await this.file.entries())
      .filter((entry) => entry.spaceId === spaceId)
      .map(({ group, batch, phase, members }) => ({ group, batch, phase, members }));
  }

  /** A batch reached `phase`: in flight until healthy or put back. */
  async progress(spaceId: string, step: RolloutBatchStep, phase: RolloutPhase): Promise<void> {
    const id = `${spaceId} ${step.group}`;
    await this.file.update((entries) => {
      if (phase === "healthy" || phase === "reverted") {
        if (entries[id] === undefined) return false;
        delete entries[id];
        return;
      }
      const members = step.members.map((member) => ({ name: member.cubeName, index: member.index, from: member.from }));
      entries[id] = { spaceId, group: step.group, batch: step.batch, phase, members, at: new Date().toISOString() };
    });
  }
}
