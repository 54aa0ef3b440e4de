/** API keys (stored as sha256 hashes) and spaces. */
import { HttpError } from "./http.js";
import { keyIdFromHash, newApiKey, newId, sha256Hex } from "./ids.js";
import type { KeyRole, StateData } from "./state.js";

/** Who a request's API key belongs to. */
export interface AuthInfo {
  keyId: string;
  spaceId: string;
  role: KeyRole;
}

export function addKey(data: StateData, spaceId: string, role: KeyRole, key = newApiKey()): string {
  const hash = sha256Hex(key);
  const id = keyIdFromHash(hash);
  data.keys[id] = { id, hash, spaceId, role };
  return key;
}

export function ensureSpace(data: StateData, input: { id?: string; name?: string }, createdAt: string): string {
  const id = input.id ?? newId("spc");
  data.spaces[id] ??= { id, name: input.name ?? "Emulated space", tier: "emulator", createdAt };
  return id;
}

export function createSpace(data: StateData, input: { id?: string; name?: string }, createdAt: string) {
  if (input.id !== undefined && data.spaces[input.id]) throw new HttpError(409, `space ${input.id} already exists`);
  const spaceId = ensureSpace(data, input, createdAt);
  return { spaceId, ownerKey: addKey(data, spaceId, "owner"), readOnlyKey: addKey(data, spaceId, "read_only") };
}

/** key → sha256: every request hashes its key, almost always one of a handful. Bounded. */
const hashes = new Map<string, string>();
const HASH_CACHE_MAX = 1024;

function hashOf(key: string): string {
  let hash = hashes.get(key);
  if (hash === undefined) {
    if (hashes.size >= HASH_CACHE_MAX) hashes.clear();
    hashes.set(key, (hash = sha256Hex(key)));
  }
  return hash;
}

export function findKey(data: StateData, key: string): AuthInfo | undefined {
  const hash = hashOf(key);
  const record = data.keys[keyIdFromHash(hash)];
  return record && record.hash === hash ? { keyId: record.id, spaceId: record.spaceId, role: record.role } : undefined;
}
