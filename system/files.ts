/**
 * Files cubeform writes: created beside the target and renamed over it, so a reader never sees
 * half a file and a planted symlink is replaced, never followed. New files are 0600 and new
 * directories 0700 whatever the umask; a file that exists keeps the mode its owner gave it.
 * (write-file-atomic resolves symlinks and writes to their target, which is the hole to close.)
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fchmodSync, linkSync, lstatSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { link, lstat, mkdir, open, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export const PRIVATE_FILE = 0o600;
export const PRIVATE_DIR = 0o700;

export interface WriteOptions {
  /** This mode, always; else an existing regular file keeps its mode and a new one is 0600. */
  mode?: number;
  /** false: fail with EEXIST when anything (a file, a link) is at the path, instead of replacing it. */
  overwrite?: boolean;
}

type Chunk = string | Uint8Array;
export type FileData = Chunk | Iterable<Chunk> | AsyncIterable<Chunk>;

export async function writeFileAtomic(path: string, data: FileData, options: WriteOptions = {}): Promise<void> {
  const mode = options.mode ?? modeOf(await lstat(path).catch(() => undefined));
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  const temp = tempPathBeside(path);
  try {
    const handle = await open(temp, "wx", mode);
    try {
      await handle.chmod(mode);
      await writeChunks(handle, data);
    } finally {
      await handle.close();
    }
    await (options.overwrite === false ? link(temp, path) : rename(temp, path));
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

export function writeFileAtomicSync(path: string, data: Chunk | Iterable<Chunk>, options: WriteOptions = {}): void {
  const mode = options.mode ?? modeOf(lstatOrUndefined(path));
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  const temp = tempPathBeside(path);
  try {
    const fd = openSync(temp, "wx", mode);
    try {
      fchmodSync(fd, mode);
      for (const chunk of typeof data === "string" || data instanceof Uint8Array ? [data] : data) writeSync(fd, typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    } finally {
      closeSync(fd);
    }
    (options.overwrite === false ? linkSync : renameSync)(temp, path);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Renamed into place, or never created.
    }
  }
}

/** For appending to a file that may exist (a download's FILE.part): refuses a symlink (ELOOP); new files are 0600. */
export function openForAppendNoFollow(path: string): Promise<FileHandle> {
  return open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, PRIVATE_FILE);
}

/** A directory for cubeform's own files: created 0700 (with its parents); an existing one is left as it is. */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR });
}

/** The mode to write with: a regular file's own, else (nothing there, a link) private. */
function modeOf(stats: { isFile(): boolean; mode: number } | undefined): number {
  return stats?.isFile() ? stats.mode & 0o7777 : PRIVATE_FILE;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function tempPathBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
}

async function writeChunks(handle: FileHandle, data: FileData): Promise<void> {
  if (typeof data === "string" || data instanceof Uint8Array) {
    await handle.writeFile(data);
    return;
  }
  for await (const chunk of data) await (typeof chunk === "string" ? handle.write(chunk, null, "utf8") : handle.write(chunk));
}
