/**
 * Files cubeform writes: created beside the target and renamed over it, so a reader never sees half a file and a planted
 * symlink is replaced, never followed (write-file-atomic writes through it). New files are 0600 and new directories 0700
 * whatever the umask; an existing file keeps its mode. Files cubeform reads: only a regular file, up to a bound that fits
 * what it is; a device, a pipe or a larger file is refused unread.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { fsPromises, nodeCrypto } from "./builtins.js";
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
  const fs = fsPromises();
  const mode = options.mode ?? modeOf(await fs.lstat(path).catch(() => undefined));
  await fs.mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  const temp = tempPathBeside(path);
  try {
    const handle = await fs.open(temp, "wx", mode);
    try {
      await handle.chmod(mode);
      await writeChunks(handle, data);
    } finally {
      await handle.close();
    }
    await (options.overwrite === false ? fs.link(temp, path) : fs.rename(temp, path));
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
}

export function writeFileAtomicSync(path: string, data: Chunk | Iterable<Chunk>, options: WriteOptions = {}): void {
  const mode = options.mode ?? modeOf(tryOr(() => lstatSync(path), undefined));
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  const temp = tempPathBeside(path);
  try {
    const fd = openSync(temp, "wx", mode);
    try {
      fchmodSync(fd, mode);
      for (const chunk of typeof data === "string" || data instanceof Uint8Array ? [data] : data)
        writeSync(fd, typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    } finally {
      closeSync(fd);
    }
    (options.overwrite === false ? linkSync : renameSync)(temp, path);
  } finally {
    unlinkQuietly(temp); // renamed into place, or never created
  }
}

/** Removes a file that may be gone already. */
export function unlinkQuietly(path: string): void {
  tryOr(() => unlinkSync(path), undefined);
}

/** For appending to a file that may exist (a download's FILE.part): refuses a symlink (ELOOP); new files are 0600. */
export function openForAppendNoFollow(path: string): Promise<FileHandle> {
  return fsPromises().open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, PRIVATE_FILE);
}

/** A directory for cubeform's own files: created 0700 (with its parents); an existing one is left as it is. */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR });
}

/** The mode to write with: a regular file's own, else (nothing there, a link) private. */
function modeOf(stats: { isFile(): boolean; mode: number } | undefined): number {
  return stats?.isFile() ? stats.mode & 0o7777 : PRIVATE_FILE;
}

/** What `run` returns, or `fallback` when it throws. */
export function tryOr<T, F>(run: () => T, fallback: F): T | F {
  try {
    return run();
  } catch {
    return fallback;
  }
}

function tempPathBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${nodeCrypto().randomBytes(6).toString("hex")}.tmp`);
}

async function writeChunks(handle: FileHandle, data: FileData): Promise<void> {
  if (typeof data === "string" || data instanceof Uint8Array) return handle.writeFile(data);
  for await (const chunk of data) await (typeof chunk === "string" ? handle.write(chunk, null, "utf8") : handle.write(chunk));
}

/** cubeform's own JSON state (idempotency journal, secret digests, recent deletions, pacing): ~150-byte entries, so 64 MB is ~400,000. */
export const STATE_FILE: ReadLimit = { maxBytes: 64 * 1024 * 1024, what: "a cubeform state file" };

/** What a file is for, and the most of it cubeform reads. */
export interface ReadLimit {
  maxBytes: number;
  /** What the file is, for messages: "over the 16 KB limit for userData". */
  what: string;
}

export type ReadRefusal = "missing" | "dangling_symlink" | "symlink_loop" | "not_regular" | "too_large" | "unreadable";

/** A file not read: `reason` says why without the path ("not a regular file (a character device)"). */
export class FileReadError extends Error {
  readonly code = "file_unreadable";
  constructor(
    readonly path: string,
    readonly refusal: ReadRefusal,
    readonly reason: string,
  ) {
    super(`cannot read ${path}: ${reason}`);
    this.name = new.target.name;
  }
}

/**
 * Non-blocking, so opening a named pipe returns at once (the fstat refuses it) instead of waiting for a writer; no controlling
 * terminal from a tty. A symlink is followed: the fstat of what was opened decides, so no swap slips between a check and the read.
 */
const OPEN_FOR_READ = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** The file's bytes, when it is a regular file of at most limit.maxBytes; else a FileReadError. */
export function readRegularFile(path: string, limit: ReadLimit): Buffer {
  return withRegularFile(path, limit, (fd, size) => {
    const sink = new BoundedSink(path, limit, size);
    while (sink.filled(readSync(fd, sink.buffer, sink.length, sink.room(), null)));
    return sink.bytes();
  });
}

/** Whether readRegularFile would read the file, without reading it (a private key stays where it is); else a FileReadError. */
export function checkRegularFile(path: string, limit: ReadLimit): void {
  withRegularFile(path, limit, () => undefined);
}

/** `use` of the file opened for reading, once fstat says it is a regular file of at most limit.maxBytes (its size given). */
function withRegularFile<T>(path: string, limit: ReadLimit, use: (fd: number, size: number) => T): T {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FOR_READ);
  } catch (error) {
    throw openRefusal(path, error);
  }
  try {
    return use(fd, regularSize(path, fstatSync(fd), limit));
  } finally {
    closeSync(fd);
  }
}

export function readRegularText(path: string, limit: ReadLimit): string {
  return readRegularFile(path, limit).toString("utf8");
}

export async function readRegularFileAsync(path: string, limit: ReadLimit): Promise<Buffer> {
  let handle: FileHandle;
  try {
    handle = await fsPromises().open(path, OPEN_FOR_READ);
  } catch (error) {
    throw openRefusal(path, error);
  }
  try {
    const sink = new BoundedSink(path, limit, regularSize(path, await handle.stat(), limit));
    while (sink.filled((await handle.read(sink.buffer, sink.length, sink.room(), null)).bytesRead));
    return sink.bytes();
  } finally {
    await handle.close();
  }
}

export async function readRegularTextAsync(path: string, limit: ReadLimit): Promise<string> {
  return (await readRegularFileAsync(path, limit)).toString("utf8");
}

/** The size fstat gives a regular file within the bound; anything else is refused before a byte is read. */
function regularSize(path: string, stats: Stats, limit: ReadLimit): number {
  if (!stats.isFile()) throw new FileReadError(path, "not_regular", `not a regular file (${kindOf(stats)})`);
  if (stats.size > limit.maxBytes)
    throw new FileReadError(path, "too_large", `it is ${overLimit(stats.size, limit.maxBytes)} for ${limit.what}`);
  return stats.size;
}

/** Where the bytes go: sized from fstat, doubled while the file turns out longer, never past maxBytes + 1 (how a file that grew is caught). */
class BoundedSink {
  buffer: Buffer;
  length = 0;
  constructor(
    private readonly path: string,
    private readonly limit: ReadLimit,
    size: number,
  ) {
    // /proc files say 0 and have text: start with a page.
    this.buffer = Buffer.allocUnsafe(Math.min(Math.max(size, 4096), limit.maxBytes) + 1);
  }

  room(): number {
    return this.buffer.length - this.length;
  }

  /** Counts `n` bytes read; false at the end of the file. */
  filled(n: number): boolean {
    if (n === 0) return false;
    this.length += n;
    if (this.room() > 0) return true;
    if (this.length > this.limit.maxBytes)
      throw new FileReadError(
        this.path,
        "too_large",
        `it grew past the ${formatBytes(this.limit.maxBytes)} limit for ${this.limit.what} while it was read`,
      );
    const bigger = Buffer.allocUnsafe(Math.min(this.buffer.length * 2, this.limit.maxBytes + 1));
    this.buffer.copy(bigger, 0, 0, this.length);
    this.buffer = bigger;
    return true;
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

function openRefusal(path: string, error: unknown): FileReadError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP") return new FileReadError(path, "symlink_loop", "a symlink that loops (too many levels of symbolic links)");
  if (code === "ENOENT" || code === "ENOTDIR") {
    const target = tryOr(() => readlinkSync(path), undefined);
    return target === undefined
      ? new FileReadError(path, "missing", "no such file")
      : new FileReadError(path, "dangling_symlink", `a symlink to ${target}, which does not exist`);
  }
  if (code === "EACCES") return new FileReadError(path, "unreadable", "permission denied");
  return new FileReadError(path, "unreadable", (error as Error).message);
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isFIFO()) return "a named pipe";
  if (stats.isSocket()) return "a socket";
  return "not a file";
}

/** "20 KB, over the 16 KB limit"; in bytes when both read the same rounded ("16385 bytes, over the 16384-byte limit"). */
function overLimit(size: number, max: number): string {
  const [given, limit] = [formatBytes(size), formatBytes(max)];
  return given === limit ? `${size} bytes, over the ${max}-byte limit` : `${given}, over the ${limit} limit`;
}

/** "16 KB", "20.5 KB", "64 MB" (binary units, as the API states its 16 KB). */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : Number(value.toFixed(1))} ${units[unit]}`;
}
