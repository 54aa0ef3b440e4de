/** Idempotency keys: minted once per operation, reused on every resend of it. */
import { nodeCrypto } from "../system/builtins.js";
import { InvalidArgumentError } from "./errors.js";

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export function newIdempotencyKey(prefix = "cf-"): string {
  return checkIdempotencyKey(`${prefix}${nodeCrypto().randomUUID()}`);
}

/** Header-safe (visible ASCII), non-empty, at most 255 characters (the API's limit). */
export function checkIdempotencyKey(key: string): string {
  if (typeof key !== "string" || key.length === 0) throw new InvalidArgumentError("Idempotency key must be a non-empty string");
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new InvalidArgumentError(`Idempotency key is ${key.length} characters; the API allows at most ${MAX_IDEMPOTENCY_KEY_LENGTH}`);
  }
  if (!/^[\x21-\x7e]+$/.test(key)) throw new InvalidArgumentError("Idempotency key may contain only visible ASCII characters");
  return key;
}
