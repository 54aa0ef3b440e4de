// The floor of a transfer: the same bytes moved with the same HTTP library the client uses
// (undici), streamed to/from the file, and nothing else (no CLI, no validation, no progress).
//   node transfer-floor.mjs download URL FILE
//   node transfer-floor.mjs upload FILE CHUNK_BYTES CONCURRENCY URL1 URL2 …   (part n = URLn)
// Prints {"bytes": N} on stdout.
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { request } from "undici";

const [mode, ...args] = process.argv.slice(2);

async function download(url, file) {
  const response = await request(url);
  if (response.statusCode !== 200) throw new Error(`GET answered ${response.statusCode}`);
  await pipeline(response.body, createWriteStream(file));
  return statSync(file).size;
}

async function upload(file, chunk, concurrency, urls) {
  const size = statSync(file).size;
  const queue = urls.map((url, i) => ({ url, start: i * chunk, end: Math.min((i + 1) * chunk, size) - 1 }));
  let sent = 0;
  const worker = async () => {
    for (let part = queue.shift(); part; part = queue.shift()) {
      const body = createReadStream(file, { start: part.start, end: part.end, highWaterMark: 256 * 1024 });
      const response = await request(part.url, { method: "PUT", body, headers: { "content-length": String(part.end - part.start + 1) } });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`PUT answered ${response.statusCode}`);
      sent += part.end - part.start + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return sent;
}

const bytes =
  mode === "download" ? await download(args[0], args[1]) : await upload(args[0], Number(args[1]), Number(args[2]), args.slice(3));
process.stdout.write(`${JSON.stringify({ bytes })}\n`);
