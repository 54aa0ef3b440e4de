/**
 * Streaming, resumable archive downloads from presigned URLs. Bytes go straight to
 * `FILE.part` (never the whole archive in memory); an existing `.part` is resumed with a Range
 * request; a dropped connection is resumed within the run (with a fresh URL when the old one
 * was refused); the file gets its final name only when its byte count is the expected one.
 */
import { createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { request } from "undici";
import { environmentNetwork, type Network } from "./dispatcher.js";
import type { BackupDownload } from "../schema/index.js";
import { checkBaseUrl } from "./config.js";
import { StorageUnreachable, TransferError } from "./errors.js";
import { storageFailure } from "./network-failure.js";
import { storageErrorText } from "./storage-answer.js";

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
  /** Resumes after a dropped connection within one run (default 3). */
  maxResumes?: number;
  /** Default: the process's proxies from process.env (client/dispatcher.ts). */
  network?: Network;
}

export interface DownloadResult {
  file: string;
  bytes: number;
  /** Bytes found in FILE.part when the run started (0: a fresh download). */
  resumedFrom: number;
}

export function partFileOf(file: string): string {
  return `${file}.part`;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
}

/** Downloads what `link()` points at into `file`; `link` is asked again when a URL is refused (e.g. expired). */
export async function downloadArchive(link: () => Promise<BackupDownload>, file: string, options: DownloadOptions = {}): Promise<DownloadResult> {
  const part = partFileOf(file);
  const resumedFrom = await sizeOf(part);
  let target = await link();
  let total = target.sizeBytes;
  let failures = 0;
  for (;;) {
    const have = await sizeOf(part);
    if (total !== null && have === total) break;
    if (total !== null && have > total) {
      await rm(part, { force: true });
      throw new TransferError(`${part} holds ${have} bytes, more than the archive's ${total}: it was removed, run the download again`);
    }
    try {
      total = await fetchInto(target.url, part, have, total, resumedFrom, options);
      if (total === null) total = await sizeOf(part);
      if ((await sizeOf(part)) <= have && have !== total) throw new TransferError("the download delivered no bytes");
    } catch (error) {
      if (options.signal?.aborted) throw new TransferError(`download stopped; ${await sizeOf(part)} bytes kept in ${part}, the next run resumes from there`);
      failures++;
      const limit = error instanceof StorageUnreachable && error.retryLimit !== undefined ? error.retryLimit : (options.maxResumes ?? 3);
      if (failures > limit) throw asTransferError(error, part, await sizeOf(part));
      if (error instanceof RefusedUrl) target = await link();
    }
  }
  const bytes = await sizeOf(part);
  await rename(part, file);
  return { file, bytes, resumedFrom };
}

class RefusedUrl extends Error {}

/** One GET from `offset`; returns the archive's total size as the server states it. */
async function fetchInto(url: string, part: string, offset: number, total: number | null, resumedFrom: number, options: DownloadOptions): Promise<number | null> {
  checkBaseUrl(new URL(url).origin);
  const network = options.network ?? environmentNetwork();
  const response = await request(url, {
    method: "GET",
    headers: offset > 0 ? { range: `bytes=${offset}-` } : {},
    ...(options.signal ? { signal: options.signal } : {}),
    dispatcher: network.dispatcher,
  }).catch((error: unknown) => {
    throw options.signal?.aborted ? error : storageFailure(error as { code?: unknown }, "GET", url, network);
  });
  const { statusCode, headers, body } = response;
  if (statusCode === 416 && total !== null && offset === total) {
    await body.dump();
    return total;
  }
  if (statusCode === 403 || statusCode === 404 || statusCode === 410) {
    const text = await body.text().catch(() => "");
    throw new RefusedUrl(`the download URL was refused (HTTP ${statusCode}): ${storageErrorText(text)}`);
  }
  if (statusCode !== 200 && statusCode !== 206) {
    await body.dump();
    throw new TransferError(`the download answered HTTP ${statusCode}`);
  }
  // A 200 to a Range request is the whole archive again: start the file over.
  const start = statusCode === 206 ? offset : 0;
  const stated = statedTotal(headers, statusCode, start);
  const expected = total ?? stated;
  let bytes = start;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      options.onProgress?.({ bytes, total: expected, resumedFrom });
      done(null, chunk);
    },
  });
  await pipeline(body, counter, createWriteStream(part, { flags: start > 0 ? "a" : "w" }));
  return expected;
}

function statedTotal(headers: Record<string, string | string[] | undefined>, status: number, start: number): number | null {
  const range = headers["content-range"];
  const fromRange = typeof range === "string" ? /\/(\d+)$/.exec(range)?.[1] : undefined;
  if (fromRange) return Number(fromRange);
  const length = headers["content-length"];
  return status === 200 && typeof length === "string" ? Number(length) + start : null;
}

function asTransferError(error: unknown, part: string, kept: number): TransferError {
  const reason = error instanceof Error ? error.message : String(error);
  return new TransferError(`download failed: ${reason}; ${kept} bytes kept in ${part}, the next run resumes from there`);
}
