import { createHash, randomBytes } from "node:crypto";

/** Random bytes are drawn in batches: one randomBytes call per id cost more than the rest of a create. */
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolOffset = 0;

export function randomHex(bytes: number): string {
  if (bytes > POOL_SIZE) return randomBytes(bytes).toString("hex");
  if (poolOffset + bytes > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  poolOffset += bytes;
  return pool.toString("hex", poolOffset - bytes, poolOffset);
}

/** A random identifier with a readable prefix, e.g. cube_3f9a0c1d2e4b. */
export function newId(prefix: string, bytes = 6): string {
  return `${prefix}_${randomHex(bytes)}`;
}

export function newApiKey(): string {
  return `kro_${randomBytes(20).toString("hex")}`;
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Keys are stored only as hashes; the key id is derived from the hash so it survives restarts. */
export function keyIdFromHash(hash: string): string {
  return `key_${hash.slice(0, 12)}`;
}

export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
