/** Presigned storage URLs: an HMAC of path and expiry (emulated clock) with a per-process key; no API key needed. */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Where storage URLs live: outside /api/v1, so they are neither rate limited nor logged. */
export const STORAGE_PREFIX = "/__storage";

export class Presigner {
  private readonly key = randomBytes(32);

  /** `origin` + path + `?expires=…&signature=…`. */
  url(origin: string, path: string, expiresAtMs: number): string {
    return `${origin}${STORAGE_PREFIX}${path}?expires=${expiresAtMs}&signature=${this.signature(path, expiresAtMs)}`;
  }

  check(path: string, query: URLSearchParams, now: number): "ok" | "expired" | "invalid" {
    const expires = Number(query.get("expires"));
    const given = Buffer.from(query.get("signature") ?? "", "utf8");
    const expected = Buffer.from(this.signature(path, expires), "utf8");
    if (!Number.isSafeInteger(expires) || given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid";
    return now > expires ? "expired" : "ok";
  }

  /** A token for `text` that only this emulator process can make (the device-login page's form). */
  token(text: string): string {
    return createHmac("sha256", this.key).update(`token\n${text}`).digest("hex");
  }

  private signature(path: string, expiresAtMs: number): string {
    return createHmac("sha256", this.key).update(`${path}\n${expiresAtMs}`).digest("hex");
  }
}
