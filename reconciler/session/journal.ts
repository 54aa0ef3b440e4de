/**
 * The idempotency journal (.cubeform/journal.json): a create's key is written before the request goes out, so a run that dies mid-request reuses
 * it and the API answers with the first result instead of creating a duplicate.
 */
import { nodeCrypto } from "../../system/builtins.js";
import type { IdempotencyJournal } from "../../engine/types.js";
import { StateFile } from "./state-file.js";

type JournalEntry = { key: string; writtenAt: string };

type EntryId = Parameters<IdempotencyJournal["keyFor"]>[0];

/** The API keeps idempotency keys for 24 h; older entries are ignored (and dropped). */
export const JOURNAL_MAX_AGE_MS = 23 * 60 * 60 * 1000;

export class FileJournal implements IdempotencyJournal {
  private readonly file: StateFile<JournalEntry>;

  constructor(
    path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.file = new StateFile(
      path,
      (value): value is JournalEntry => isEntry(value) && now() - Date.parse(value.writtenAt) < JOURNAL_MAX_AGE_MS,
    );
  }

  async keyFor(entry: EntryId, proposed?: string): Promise<string> {
    const id = entryId(entry);
    const file = await this.file.update((entries) => {
      if (entries[id] !== undefined) return false;
      entries[id] = { key: proposed ?? nodeCrypto().randomUUID(), writtenAt: new Date(this.now()).toISOString() };
    });
    return (file[id] as JournalEntry).key;
  }

  async pending(entry: EntryId): Promise<boolean> {
    return (await this.file.entries())[entryId(entry)] !== undefined;
  }

  async settle(entry: EntryId): Promise<void> {
    await this.file.update((entries) => {
      delete entries[entryId(entry)];
    });
  }
}

const entryId = (entry: EntryId): string => `${entry.spaceId} ${entry.address} ${entry.bodyDigest}`;

function isEntry(value: unknown): value is JournalEntry {
  const v = value as Partial<JournalEntry> | null;
  return typeof v?.key === "string" && typeof v.writtenAt === "string";
}
