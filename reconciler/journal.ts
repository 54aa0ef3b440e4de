/**
 * The idempotency journal of the CLI: a JSON file under .cubeform/. A create's key is written
 * before the request goes out, so a run that dies mid-request reuses the key next time and the
 * API answers with the first result instead of creating a duplicate.
 */
import { randomUUID } from "node:crypto";
import type { IdempotencyJournal } from "../engine/types.js";
import { readRegularTextAsync, STATE_FILE, writeFileAtomic } from "../system/files.js";

interface JournalEntry {
  key: string;
  writtenAt: string;
}

type JournalFile = Record<string, JournalEntry>;
type EntryId = Parameters<IdempotencyJournal["keyFor"]>[0];

/** The API keeps idempotency keys for 24 h; older entries are ignored (and dropped). */
export const JOURNAL_MAX_AGE_MS = 23 * 60 * 60 * 1000;

export class FileJournal implements IdempotencyJournal {
  /** Serializes read-modify-write cycles of the file. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly now: () => number = Date.now,
  ) {}

  keyFor(entry: EntryId): Promise<string> {
    return this.update((file) => {
      const id = entryId(entry);
      const existing = file[id];
      if (existing !== undefined) return existing.key;
      const key = randomUUID();
      file[id] = { key, writtenAt: new Date(this.now()).toISOString() };
      return key;
    });
  }

  async pending(entry: EntryId): Promise<boolean> {
    await this.queue;
    return (await this.read())[entryId(entry)] !== undefined;
  }

  settle(entry: EntryId): Promise<void> {
    return this.update((file) => {
      delete file[entryId(entry)];
    });
  }

  private update<T>(change: (file: JournalFile) => T): Promise<T> {
    const run = this.queue.then(async () => {
      const file = await this.read();
      const result = change(file);
      await this.write(file);
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async read(): Promise<JournalFile> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readRegularTextAsync(this.path, STATE_FILE));
    } catch {
      return {};
    }
    const fresh: JournalFile = {};
    if (typeof parsed !== "object" || parsed === null) return fresh;
    for (const [id, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (isEntry(value) && this.now() - Date.parse(value.writtenAt) < JOURNAL_MAX_AGE_MS) fresh[id] = value;
    }
    return fresh;
  }

  /** Atomic: a crash leaves either the old file or the new one, never half of one. */
  private async write(file: JournalFile): Promise<void> {
    await writeFileAtomic(this.path, `${JSON.stringify(file, null, 2)}\n`);
  }
}

function entryId(entry: EntryId): string {
  return `${entry.spaceId} ${entry.address} ${entry.bodyDigest}`;
}

function isEntry(value: unknown): value is JournalEntry {
  const v = value as Partial<JournalEntry> | null;
  return typeof v?.key === "string" && typeof v.writtenAt === "string" && !Number.isNaN(Date.parse(v.writtenAt));
}
