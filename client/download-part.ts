/**
 * What a download keeps between runs: `FILE.part` (the bytes so far) and its record `FILE.part.json` (the backup's id, the
 * storage's ETag / Last-Modified, the archive's size). A `.part` is appended to only for the object its record names.
 */
import type { WriteStream } from "node:fs";
import { dirname } from "node:path";
import * as z from "zod/mini";
import { openForAppendNoFollow, PRIVATE_FILE, readRegularTextAsync, writeFileAtomic, type ReadLimit } from "../system/files.js";
import { fsPromises } from "../system/builtins.js";
import { TransferError } from "./errors.js";

export function partFileOf(file: string): string {
  return `${file}.part`;
}

export function partRecordFileOf(file: string): string {
  return `${file}.part.json`;
}

const PartRecord = z.object({
  objectId: z.nullable(z.string()),
  etag: z.nullable(z.string()),
  lastModified: z.nullable(z.string()),
  total: z.nullable(z.number()),
});
export type PartRecord = z.infer<typeof PartRecord>;

/** A record is a few hundred bytes; anything larger is not one of ours. */
const PART_RECORD: ReadLimit = { maxBytes: 4096, what: "a download record" };

export async function sizeOf(path: string): Promise<number> {
  try {
    return (await fsPromises().stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
}

/** The record beside FILE.part, or undefined when there is none or it cannot be trusted. */
export async function readPartRecord(file: string): Promise<PartRecord | undefined> {
  try {
    const parsed = PartRecord.safeParse(JSON.parse(await readRegularTextAsync(partRecordFileOf(file), PART_RECORD)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export async function writePartRecord(file: string, record: PartRecord): Promise<void> {
  await writeFileAtomic(partRecordFileOf(file), `${JSON.stringify(record)}\n`, { mode: PRIVATE_FILE });
}

/** Why the bytes in FILE.part cannot be resumed for this object, or undefined when they can. */
export function whyNotResumable(record: PartRecord | undefined, objectId: string | null, total: number | null): string | undefined {
  if (record === undefined) return "there is no record of which backup it holds";
  if (record.objectId !== objectId) return `it holds another backup (${record.objectId ?? "unknown"})`;
  if (record.total !== null && total !== null && record.total !== total)
    return `it was for an archive of ${record.total} bytes, this one has ${total}`;
  if (record.etag === null && record.lastModified === null) return "the storage gave no ETag or Last-Modified to check it against";
  return undefined;
}

/** Removes FILE.part and its record. */
export async function discardPart(file: string): Promise<void> {
  await fsPromises().rm(partFileOf(file), { force: true });
  await fsPromises().rm(partRecordFileOf(file), { force: true });
}

/** Keeps the first `bytes` of FILE.part: the next write goes there. */
export async function cutPartTo(file: string, bytes: number): Promise<void> {
  await fsPromises().truncate(partFileOf(file), bytes);
}

/** Renames FILE.part to FILE and drops the record. */
export async function completePart(file: string): Promise<void> {
  await fsPromises().rename(partFileOf(file), file);
  await fsPromises().rm(partRecordFileOf(file), { force: true });
}

/** Refuses, before anything is fetched, a FILE whose folder does not exist (nothing could be kept). */
export async function checkFolderOf(file: string): Promise<void> {
  const folder = dirname(file);
  const info = await fsPromises()
    .stat(folder)
    .catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
      throw error;
    });
  if (info === undefined)
    throw new TransferError(`cannot download to ${file}: the folder ${folder} does not exist; nothing was downloaded`);
  if (!info.isDirectory()) throw new TransferError(`cannot download to ${file}: ${folder} is not a folder; nothing was downloaded`);
}

/** The stream that appends to FILE.part (created 0600 when missing); a symbolic link there is refused, never followed. */
export async function openPartForAppend(file: string): Promise<WriteStream> {
  const part = partFileOf(file);
  try {
    return (await openForAppendNoFollow(part)).createWriteStream();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP")
      throw new TransferError(`${part} is a symbolic link: refusing to write through it; remove it and run the download again`);
    throw error;
  }
}
