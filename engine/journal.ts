/** Idempotency journals: where create keys live between the request and its response. */
import { nodeCrypto } from "../system/builtins.js";
import { canonical } from "./compare.js";
import type { IdempotencyJournal } from "./types.js";

type Entry = Parameters<IdempotencyJournal["keyFor"]>[0];

const entryKey = (entry: Entry): string => JSON.stringify([entry.spaceId, entry.address, entry.bodyDigest]);

/** In memory (tests, the Pulumi provider): a create retried in the same process reuses its key. */
export function memoryJournal(): IdempotencyJournal & { size(): number } {
  const keys = new Map<string, string>();
  return {
    async keyFor(entry, proposed) {
      const id = entryKey(entry);
      if (!keys.has(id)) keys.set(id, proposed ?? `cf-${nodeCrypto().randomUUID()}`);
      return keys.get(id) as string;
    },
    async settle(entry) {
      keys.delete(entryKey(entry));
    },
    async pending(entry) {
      return keys.has(entryKey(entry));
    },
    size: () => keys.size,
  };
}

/**
 * The Idempotency-Key of a cube create, the same on every machine that decides it: the space, the address and the body, and the
 * ids of earlier cubes that a replay of this key answered with but are gone (a later create of the name is a new one). Two writers
 * with no lock in common that create the same cube at once send one key, and the API creates it once (its keys: 24 h, per space).
 */
export function derivedCreateKey(entry: Entry, goneIds: readonly string[]): string {
  const digest = nodeCrypto()
    .createHash("sha256")
    .update(JSON.stringify(["cubeform create v1", entry.spaceId, entry.address, entry.bodyDigest, goneIds]))
    .digest("hex");
  return `cf-d1-${digest.slice(0, 48)}`;
}

/** sha256 of a request body in canonical form: the same body always has the same digest. */
export function bodyDigest(body: unknown): string {
  return nodeCrypto()
    .createHash("sha256")
    .update(JSON.stringify(canonical(body)))
    .digest("hex");
}
