/**
 * A JSON file of entries by key, changed read-modify-write one change at a time; unreadable or missing reads as empty, entries `keep`
 * refuses are dropped. `removeWhenEmpty`: a change that leaves none removes the file.
 */
import { readRegularText, STATE_FILE, unlinkQuietly, writeFileAtomic } from "../../system/files.js";

export class StateFile<E> {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly keep: (entry: unknown) => entry is E,
    private readonly options: { removeWhenEmpty?: boolean } = {},
  ) {}

  /** The entries once the changes under way are written. */
  async entries(): Promise<Record<string, E>> {
    await this.queue;
    return this.read();
  }

  /** Applies `change` to the entries and writes them (atomically), unless it returns false; resolves to the entries after it. */
  update(change: (entries: Record<string, E>) => boolean | void): Promise<Record<string, E>> {
    const run = this.queue.then(async () => {
      const entries = this.read();
      if (change(entries) === false) return entries;
      if (this.options.removeWhenEmpty && Object.keys(entries).length === 0) unlinkQuietly(this.path);
      else await writeFileAtomic(this.path, `${JSON.stringify(entries, null, 2)}\n`);
      return entries;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** At once: a state file is small (a journal of what is under way), and a plan need not load node:fs/promises to find none. */
  private read(): Record<string, E> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readRegularText(this.path, STATE_FILE));
    } catch {
      return {};
    }
    const entries = typeof parsed === "object" && parsed !== null ? Object.entries(parsed) : [];
    return Object.fromEntries(entries.filter(([, entry]) => this.keep(entry))) as Record<string, E>;
  }
}
