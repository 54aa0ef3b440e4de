/** Idempotency journals: where create keys live between the request and its response. */
import { createHash, randomUUID } from "node:crypto";
import { canonical } from "./compare.js";
import type { IdempotencyJournal } from "./types.js";

type Entry = Parameters<IdempotencyJournal["keyFor"]>[0];

const entryKey = (entry: Entry): string => JSON.stringify([entry.spaceId, entry.address, entry.bodyDigest]);

/** In memory (tests, the Pulumi provider): a create retried in the same process reuses its key. */
export function memoryJournal(): IdempotencyJournal & { size(): number } {
  const keys = new Map<string, string>();
  return {
    async keyFor(entry) {
      const id = entryKey(entry);
      if (!keys.has(id)) keys.set(id, `cf-${randomUUID()}`);
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

/** sha256 of a request body in canonical form: the same body always has the same digest. */
export function bodyDigest(body: unknown): string {
  return createHash("sha256").update(JSON.stringify(canonical(body))).digest("hex");
}
