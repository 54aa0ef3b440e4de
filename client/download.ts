/**
 * Streaming, resumable archive downloads from presigned URLs to `FILE.part`, resumed (Range, with If-Range so a changed object
 * comes whole, never spliced) only when its record (download-part.ts) names this object; a 206 is written where its
 * Content-Range starts. A dropped connection is resumed within the run (with a fresh URL when the old one was refused); the
 * file gets its final name only with the expected byte count.
 */
import { pipeline } from "node:stream/promises";
import type { Network } from "./dispatcher.js";
import type { BackupDownload } from "../schema/index.js";
import { StorageUnreachable, TransferError } from "./errors.js";
import { byteCounter, storageErrorText, storageRequest } from "./storage.js";
import {
  checkFolderOf,
  completePart,
  cutPartTo,
  discardPart,
  openPartForAppend,
  partFileOf,
  readPartRecord,
  sizeOf,
  whyNotResumable,
  writePartRecord,
  type PartRecord,
} from "./download-part.js";

export { partFileOf, partRecordFileOf } from "./download-part.js";

export interface TransferProgress {
  /** Bytes on disk (or sent) so far, including what a resumed run found already there. */
  bytes: number;
  /** Expected total, when known. */
  total: number | null;
  /** Bytes that were already there when this run started (a resume). */
  resumedFrom: number;
}

export interface DownloadOptions {
  signal?: AbortSignal;
  onProgress?: (progress: TransferProgress) => void;
  /** Told why the bytes already in FILE.part were thrown away and the download started over. */
  onStartOver?: (reason: string) => void;
  /** Resumes after a dropped connection within one run (default 3). */
  maxResumes?: number;
  /** Default: the process's proxies from process.env (client/dispatcher.ts). */
  network?: Network;
  /** What is downloaded (a backup's id): a FILE.part is resumed only for the same object. */
  objectId?: string;
}

export interface DownloadResult {
  file: string;
  bytes: number;
  /** Bytes found in FILE.part when the run started and kept (0: a fresh download). */
  resumedFrom: number;
  /** Why the bytes found in FILE.part were not used, when they were not. */
  startedOver?: string;
}

/** One download's state between its requests. */
interface Transfer {
  file: string;
  objectId: string | null;
  record: PartRecord | undefined;
  total: number | null;
  resumedFrom: number;
  startedOver: string | undefined;
  options: DownloadOptions;
}

/** Downloads what `link()` points at into `file`; `link` is asked again when a URL is refused (e.g. expired). */
export async function downloadArchive(
  link: () => Promise<BackupDownload>,
  file: string,
  options: DownloadOptions = {},
): Promise<DownloadResult> {
  await checkFolderOf(file);
  let target = await link();
  const transfer = await beginTransfer(file, target.sizeBytes, options);
  const part = partFileOf(file);
  let failures = 0;
  for (;;) {
    const have = await sizeOf(part);
    if (transfer.total !== null && have === transfer.total) break;
    if (transfer.total !== null && have > transfer.total) {
      await discardPart(file);
      throw new TransferError(
        `${part} holds ${have} bytes, more than the archive's ${transfer.total}: it was removed, run the download again`,
      );
    }
    try {
      if ((await fetchInto(target.url, transfer, have)) === "started-over" && have > 0) continue;
      if (transfer.total === null) transfer.total = await sizeOf(part);
      if ((await sizeOf(part)) <= have && have !== transfer.total) throw new TransferError("the download delivered no bytes");
    } catch (error) {
      if (options.signal?.aborted) throw new TransferError(`download stopped; ${await keptText(file)}`);
      failures++;
      const limit = error instanceof StorageUnreachable && error.retryLimit !== undefined ? error.retryLimit : (options.maxResumes ?? 3);
      if (failures > limit)
        throw new TransferError(`download failed: ${error instanceof Error ? error.message : String(error)}; ${await keptText(file)}`);
      if (error instanceof RefusedUrl) target = await link();
    }
  }
  const bytes = await sizeOf(part);
  await completePart(file);
  return {
    file,
    bytes,
    resumedFrom: transfer.resumedFrom,
    ...(transfer.startedOver !== undefined ? { startedOver: transfer.startedOver } : {}),
  };
}

/** Keeps FILE.part only when its record says it holds this object; otherwise starts over and says why. */
async function beginTransfer(file: string, total: number | null, options: DownloadOptions): Promise<Transfer> {
  const objectId = options.objectId ?? null;
  const transfer: Transfer = { file, objectId, record: undefined, total, resumedFrom: 0, startedOver: undefined, options };
  const have = await sizeOf(partFileOf(file));
  if (have === 0) return transfer;
  const record = await readPartRecord(file);
  const why = whyNotResumable(record, objectId, total);
  if (why === undefined) return { ...transfer, record, resumedFrom: have };
  await discardPart(file);
  startOver(transfer, `the ${have} bytes in ${partFileOf(file)} were not used: ${why}`);
  return transfer;
}

function startOver(transfer: Transfer, reason: string): void {
  transfer.startedOver ??= reason;
  transfer.resumedFrom = 0;
  transfer.options.onStartOver?.(reason);
}

class RefusedUrl extends Error {}

/** One GET from `offset`, written where the answer says its bytes start; "started-over" when FILE.part was emptied instead. */
async function fetchInto(url: string, transfer: Transfer, offset: number): Promise<"written" | "started-over"> {
  const { statusCode, headers, body } = await get(url, transfer, offset);
  if (statusCode === 416 && transfer.total !== null && offset === transfer.total) {
    await body.dump();
    return "written";
  }
  if (statusCode === 403 || statusCode === 404 || statusCode === 410) {
    const text = await body.text().catch(() => "");
    throw new RefusedUrl(`the download URL was refused (HTTP ${statusCode}): ${storageErrorText(text)}`);
  }
  if (statusCode !== 200 && statusCode !== 206) {
    await body.dump();
    throw new TransferError(`the download answered HTTP ${statusCode}`);
  }
  const start = await placeAnswer(transfer, statusCode, headers, offset);
  if (start === undefined) {
    await body.dump();
    return "started-over";
  }
  await writeBody(transfer, body, start);
  return "written";
}

function get(url: string, transfer: Transfer, offset: number) {
  const { options, record } = transfer;
  const validator = record?.etag ?? record?.lastModified ?? undefined;
  const headers: Record<string, string> =
    offset > 0 ? { range: `bytes=${offset}-`, ...(validator !== undefined ? { "if-range": validator } : {}) } : {};
  return storageRequest(url, "GET", options, () => ({ method: "GET", headers, ...(options.signal ? { signal: options.signal } : {}) }));
}

type Headers = Record<string, string | string[] | undefined>;

/** Where the answer's bytes go in FILE.part (cut there, its record written); undefined when they cannot be placed (the next request starts over). */
async function placeAnswer(transfer: Transfer, status: number, headers: Headers, offset: number): Promise<number | undefined> {
  const answer = { etag: header(headers, "etag"), lastModified: header(headers, "last-modified") };
  if (status === 200) {
    if (offset > 0)
      startOver(
        transfer,
        `the storage sent the whole archive again instead of the bytes from ${offset} (it changed since ${partFileOf(transfer.file)} was written, or does not resume)`,
      );
    transfer.total ??= contentLength(headers);
    return placeAt(transfer, 0, answer);
  }
  const range = contentRange(headers);
  if (range === undefined)
    throw new TransferError(
      `the storage answered 206 without a Content-Range of bytes (got ${JSON.stringify(header(headers, "content-range") ?? null)})`,
    );
  const why = rangeProblem(transfer, range, offset, answer.etag);
  if (why !== undefined) {
    await discardPart(transfer.file);
    startOver(transfer, why);
    return undefined;
  }
  transfer.total ??= range.total;
  return placeAt(transfer, range.start, answer);
}

/** Why a 206 cannot continue FILE.part, or undefined when it can (from its start, at or before the offset). */
function rangeProblem(transfer: Transfer, range: ContentRange, offset: number, etag: string | undefined): string | undefined {
  const part = partFileOf(transfer.file);
  if (range.total !== null && transfer.total !== null && range.total !== transfer.total)
    return `the storage's archive has ${range.total} bytes, not the ${transfer.total} expected`;
  if (offset > 0 && etag !== undefined && transfer.record?.etag != null && etag !== transfer.record.etag)
    return `the storage's object changed since ${part} was written (ETag ${etag}, was ${transfer.record.etag})`;
  if (range.start > offset) return `the storage answered bytes from ${range.start} when ${offset} were asked for; the gap cannot be filled`;
  return undefined;
}

async function placeAt(
  transfer: Transfer,
  start: number,
  answer: { etag: string | undefined; lastModified: string | undefined },
): Promise<number> {
  await cutPartTo(transfer.file, start).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT" || start !== 0) throw error;
  });
  if (start < transfer.resumedFrom) transfer.resumedFrom = start;
  const record: PartRecord = {
    objectId: transfer.objectId,
    etag: answer.etag ?? null,
    lastModified: answer.lastModified ?? null,
    total: transfer.total,
  };
  if (start === 0 || transfer.record === undefined || record.etag !== transfer.record.etag) await writePartRecord(transfer.file, record);
  transfer.record = record;
  return start;
}

async function writeBody(transfer: Transfer, body: NodeJS.ReadableStream, start: number): Promise<void> {
  const { options, total, resumedFrom } = transfer;
  const counter = byteCounter(start, (bytes) => options.onProgress?.({ bytes, total, resumedFrom }));
  await pipeline(body, counter, await openPartForAppend(transfer.file));
}

interface ContentRange {
  start: number;
  end: number;
  total: number | null;
}

/** `bytes START-END/TOTAL` (TOTAL may be `*`), or undefined when the header is not that. */
function contentRange(headers: Headers): ContentRange | undefined {
  const m = /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/.exec(header(headers, "content-range") ?? "");
  if (!m) return undefined;
  const [start, end] = [Number(m[1]), Number(m[2])];
  if (end < start) return undefined;
  return { start, end, total: m[3] === "*" ? null : Number(m[3]) };
}

function contentLength(headers: Headers): number | null {
  const length = header(headers, "content-length");
  return length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return typeof value === "string" ? value : undefined;
}

/** What is left for the next run: a resume is promised only when a .part with bytes exists. */
async function keptText(file: string): Promise<string> {
  const kept = await sizeOf(partFileOf(file)).catch(() => 0);
  if (kept > 0) return `${kept} bytes kept in ${partFileOf(file)}, the next run resumes from there`;
  await discardPart(file).catch(() => {});
  return "nothing was kept";
}
