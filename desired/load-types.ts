/** What loading one desired-state file takes and gives. */
import type { Position } from "./errors.js";
import type { ReferencedReads } from "./file-access.js";
import type { IssuePath } from "./issue-text.js";
import type { DiskLoadCache, KeptLoad } from "./load-cache.js";

export type { IssuePath, Position };

export interface LoadedFile extends KeptLoad {
  /** The path as the user gave it (used in messages and annotations). */
  file: string;
  absPath: string;
  /** Where a path (["cubes", 2, "image"]), or its nearest written ancestor, is; parses the file with positions on first use (only problems need it). */
  locate(path: IssuePath): Position;
}

export interface LoadOptions {
  file: string;
  /** The file's text when it does not come from disk (standard input); paths in it are relative to cwd. */
  source?: string;
  cwd: string;
  env: Record<string, string | undefined>;
  /**
   * A plan's targets: the cubes they leave out are read for their identity only (duplicates are still found) and kept in
   * desired.untargeted; any problem sends the whole file to the positioned load, which reports every problem as without targets.
   */
  targets?: readonly string[];
  /** Kept between the rounds of a watch: an unchanged file is not read again (memory-cache.ts). */
  cache?: LoadMemo;
  /** Kept between runs: a large unchanged file is not parsed again (load-cache.ts). */
  diskCache?: DiskLoadCache;
  /** A checkout is hostile input: the file, and every file it names, must resolve inside this real path (confine.ts). */
  root?: string;
  /** With root: where webhooks' secretFiles are written (never into the checkout). */
  secretsDir?: string;
}

/** A watch's memory of loads (LoadCache in memory-cache.ts). */
export interface LoadMemo {
  lookup(absPath: string, source: string, options: LoadOptions): LoadedFile | undefined;
  store(absPath: string, source: string, options: LoadOptions, reads: ReferencedReads, loaded: LoadedFile): void;
  /** The last merge of several files (sources.ts), answered again when each file was. */
  merged?: { parts: readonly LoadedFile[]; result: unknown };
}
