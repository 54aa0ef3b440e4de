/**
 * An emulated .cube archive's bytes: the AES-128-CTR keystream of a seed, so a 1 GiB backup costs no memory or
 * disk, any byte range is computed directly, and a shared copy downloads the same bytes.
 */
import { createCipheriv, createHash } from "node:crypto";

const BLOCK = 16;
const CHUNK = 256 * 1024;
const ZEROS = Buffer.alloc(CHUNK);

function cipherAt(seed: string, offset: number): ReturnType<typeof createCipheriv> {
  const key = createHash("sha256").update(`cube-archive:${seed}`).digest().subarray(0, 16);
  const iv = Buffer.alloc(BLOCK);
  // The counter block for byte `offset`: block number as a 128-bit big-endian integer.
  iv.writeBigUInt64BE(BigInt(Math.floor(offset / BLOCK)), 8);
  return createCipheriv("aes-128-ctr", key, iv);
}

/** Bytes [start, end] (inclusive) of the archive, in chunks of at most 256 KiB. */
export function* archiveBytes(seed: string, start: number, end: number): Generator<Buffer> {
  if (end < start) return;
  const cipher = cipherAt(seed, start);
  let skip = start % BLOCK;
  let remaining = end - start + 1;
  while (remaining > 0) {
    const size = Math.min(CHUNK, remaining + skip);
    let chunk = cipher.update(size === CHUNK ? ZEROS : ZEROS.subarray(0, size));
    if (skip > 0) {
      chunk = chunk.subarray(skip);
      skip = 0;
    }
    remaining -= chunk.length;
    yield chunk;
  }
}
