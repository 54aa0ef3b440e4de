import { createHash, randomBytes } from "node:crypto";

/** A random identifier with a readable prefix, e.g. cube_3f9a0c1d2e4b. */
export function newId(prefix: string, bytes = 6): string {
  return `${prefix}_${randomBytes(bytes).toString("hex")}`;
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
