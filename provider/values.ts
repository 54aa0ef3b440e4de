/** Small value helpers for JSON-like outputs. */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export type Props = Record<string, unknown>;

/**
 * A salted digest of a text kept in state, `salt:hmac` (hex): the same text gives another digest
 * in every resource and stack, so a digest cannot be matched against a guessed or known text.
 */
export function saltedDigestOrNull(text: string | undefined | null): string | null {
  if (typeof text !== "string") return null;
  const salt = randomBytes(16).toString("hex");
  return `${salt}:${hmacHex(salt, text)}`;
}

/** Whether `digest` (salted, or a bare sha256 from an older release) is the digest of `text`. */
export function digestMatches(digest: string, text: string): boolean {
  const [salt, mac] = digest.includes(":") ? digest.split(":", 2) : [undefined, digest];
  const expected = salt === undefined ? createHash("sha256").update(text, "utf8").digest("hex") : hmacHex(salt, text);
  return mac !== undefined && mac.length === expected.length && timingSafeEqual(Buffer.from(mac), Buffer.from(expected));
}

function hmacHex(salt: string, text: string): string {
  return createHmac("sha256", salt).update(text, "utf8").digest("hex");
}

/** Pulumi passes absent optional inputs as missing or null: treat both as "not declared". */
export function declared<T>(value: T | null | undefined): T | undefined {
  return value === null ? undefined : value;
}

/** `props` without the members that are not declared (null or undefined). */
export function declaredOnly<T extends object>(props: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(props).filter(([, value]) => value !== null && value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], null>;
  };
}

export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
