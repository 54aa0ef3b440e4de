/**
 * Multipart archive uploads to presigned part URLs: each part streamed from the file (never the whole archive in memory), a few
 * at once, a failed one retried on its own; it throws unless every part succeeded (the caller then completes the import).
 */
import { createReadStream } from "node:fs";
import { sleep } from "../system/time.js";
import { drainPool } from "../system/concurrency.js";
import type { Network } from "./dispatcher.js";
import type { ImportStarted } from "../schema/index.js";
import { StorageUnreachable, TransferError } from "./errors.js";
import { byteCounter, storageErrorText, storageRequest } from "./storage.js";
import type { TransferProgress } from "./download.js";

export interface UploadOptions {
  /** Parts in flight at once (default 4). */
  concurrency?: number;
  /** Attempts per part before the upload fails (default 3). */
  maxPartAttempts?: number;
  signal?: AbortSignal;
  onProgress?: (progress: TransferProgress) => void;
  /** Default: the process's proxies from process.env (client/dispatcher.ts). */
  network?: Network;
  /** Waits between attempts of a part (tests pass one that returns at once). */
  sleep?: (ms: number) => Promise<void>;
}

export interface UploadedPart {
  partNumber: number;
  etag: string;
}

/** Sends every part of `file` to its URL; returns their ETags in part order. */
export async function uploadParts(
  file: string,
  fileSize: number,
  started: ImportStarted,
  options: UploadOptions = {},
): Promise<UploadedPart[]> {
  const chunk = started.chunkSizeBytes;
  const queue = [...started.parts].sort((a, b) => a.partNumber - b.partNumber);
  const done: UploadedPart[] = [];
  let sent = 0;
  const inFlight = new Map<number, number>();
  const report = () => {
    let partial = 0;
    for (const bytes of inFlight.values()) partial += bytes;
    options.onProgress?.({ bytes: sent + partial, total: fileSize, resumedFrom: 0 });
  };
  const failure = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, failure.signal]) : failure.signal;
  let firstError: unknown;
  const send = async (part: ImportStarted["parts"][number]): Promise<void> => {
    const start = (part.partNumber - 1) * chunk;
    const end = Math.min(start + chunk, fileSize) - 1;
    try {
      const onBytes = (bytes: number) => {
        inFlight.set(part.partNumber, bytes);
        report();
      };
      const etag = await sendWithRetries({ file, part, start, end, signal, options, onBytes });
      inFlight.delete(part.partNumber);
      sent += end - start + 1;
      done.push({ partNumber: part.partNumber, etag });
      report();
    } catch (error) {
      firstError ??= error;
      failure.abort();
    }
  };
  await drainPool(queue, options.concurrency ?? 4, send, () => signal.aborted);
  if (options.signal?.aborted) throw new TransferError("upload stopped before every part was sent");
  if (firstError !== undefined)
    throw firstError instanceof TransferError
      ? firstError
      : new TransferError(`upload failed: ${String((firstError as Error).message ?? firstError)}`);
  return done.sort((a, b) => a.partNumber - b.partNumber);
}

/** One part's byte range of the file, bound for its URL. */
interface PartJob {
  file: string;
  part: { partNumber: number; url: string };
  start: number;
  end: number;
  signal: AbortSignal;
  options: UploadOptions;
  onBytes: (bytes: number) => void;
}

async function sendWithRetries(job: PartJob): Promise<string> {
  const { part, signal, options, onBytes } = job;
  const attempts = options.maxPartAttempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendPart(job);
    } catch (error) {
      onBytes(0);
      const hopeless = error instanceof StorageUnreachable && error.retryLimit !== undefined && attempt > error.retryLimit;
      if (
        signal.aborted ||
        attempt >= attempts ||
        hopeless ||
        (error instanceof TransferError && error.status !== undefined && error.status < 500 && error.status !== 408 && error.status !== 429)
      ) {
        throw error instanceof TransferError
          ? error
          : new TransferError(
              `part ${part.partNumber} failed after ${attempt} attempt${attempt > 1 ? "s" : ""}: ${(error as Error).message}`,
            );
      }
      await (options.sleep ?? sleep)(Math.min(500 * 2 ** (attempt - 1), 5_000));
    }
  }
}

async function sendPart({ file, part, start, end, signal, options, onBytes }: PartJob): Promise<string> {
  const response = await storageRequest(part.url, `PUT of part ${part.partNumber}`, { network: options.network, signal }, () => {
    const counter = byteCounter(0, onBytes);
    const source = createReadStream(file, { start, end, highWaterMark: 256 * 1024 });
    source.on("error", (error) => counter.destroy(error));
    const headers = { "content-length": String(end - start + 1), "content-type": "application/octet-stream" };
    return { method: "PUT", body: source.pipe(counter), headers, signal };
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) {
    throw new TransferError(`part ${part.partNumber} was refused (HTTP ${response.statusCode}): ${storageErrorText(text)}`, {
      status: response.statusCode,
    });
  }
  const etag = response.headers.etag;
  if (typeof etag !== "string" || etag === "") throw new TransferError(`part ${part.partNumber}: the storage answered without an ETag`);
  return etag;
}
