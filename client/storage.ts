/** Requests to a storage's presigned URLs: archive downloads and part uploads. */
import { Transform } from "node:stream";
import type { Dispatcher } from "undici";
import { checkBaseUrl } from "./config.js";
import { environmentNetwork, type Network } from "./dispatcher.js";
import { storageFailure } from "./network-failure.js";

type StorageOptions = { network?: Network | undefined; signal?: AbortSignal | undefined };

/**
 * One request to a storage URL (https, or http to loopback) through `options.network` (default: the
 * process's proxies from process.env); no answer is a StorageUnreachable naming `what`, unless `signal` stopped it.
 */
export function storageRequest(
  url: string,
  what: string,
  options: StorageOptions,
  request: () => Omit<Dispatcher.RequestOptions, "origin" | "path">,
) {
  checkBaseUrl(new URL(url).origin);
  const network = options.network ?? environmentNetwork();
  return network.request(url, request()).catch((error: unknown) => {
    throw options.signal?.aborted ? error : storageFailure(error as { code?: unknown }, what, url, network);
  });
}

/** Passes bytes on, telling `onBytes` the count so far (from `start`) as the reader pulls them (a 'data' listener would let them flow before it reads). */
export function byteCounter(start: number, onBytes: (bytes: number) => void): Transform {
  let bytes = start;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      onBytes(bytes);
      done(null, chunk);
    },
  });
}

/** What a storage said when it refused: its `{error}` text, or the start of its body. */
export function storageErrorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
  } catch {
    // not JSON
  }
  return body.slice(0, 200) || "no details";
}
