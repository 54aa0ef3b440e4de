/** What a watch keeps between rounds: a loaded file, answered again while nothing it came from changed. */
import { readRegularText, tryOr } from "../system/files.js";
import type { ReferencedReads } from "./file-access.js";
import { ANY_REFERENCED_FILE } from "./limits.js";
import type { LoadedFile, LoadMemo, LoadOptions } from "./load-types.js";

/**
 * A loaded file, answered again while its text and those of the files it refers to are unchanged (compared in full, not by
 * time stamp) and the environment and targets are the same. A file with problems is never kept.
 */
export class LoadCache implements LoadMemo {
  private readonly entries = new Map<
    string,
    { source: string; env: LoadOptions["env"]; targets: string; reads: ReferencedReads; loaded: LoadedFile }
  >();
  merged?: { parts: readonly LoadedFile[]; result: unknown };

  lookup(absPath: string, source: string, options: LoadOptions): LoadedFile | undefined {
    const entry = this.entries.get(absPath);
    if (entry === undefined || entry.source !== source || entry.env !== options.env || entry.targets !== targetsKey(options))
      return undefined;
    return [...entry.reads].every(([path, text]) => tryOr(() => readRegularText(path, ANY_REFERENCED_FILE), undefined) === text)
      ? entry.loaded
      : undefined;
  }

  store(absPath: string, source: string, options: LoadOptions, reads: ReferencedReads, loaded: LoadedFile): void {
    this.entries.set(absPath, { source, env: options.env, targets: targetsKey(options), reads, loaded });
  }
}

const targetsKey = (options: LoadOptions): string => (options.targets ?? []).join("\0");
