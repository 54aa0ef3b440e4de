/**
 * Signed deliveries already accepted, by what the signature covers (timestamp and raw body), so a captured delivery sent again under any id is
 * recognised. Entries are kept only within the tolerance window (the signature check refuses older ones anyway), capped.
 */
import { createHash } from "node:crypto";
import { TOLERANCE_SECONDS } from "./signature.js";

const MAX_REMEMBERED = 10_000;

export class AcceptedSignatures {
  /** sha256 of `${t}.${body}` → the unix second after which the timestamp is out of tolerance. */
  private readonly expiries = new Map<string, number>();

  constructor(private readonly max = MAX_REMEMBERED) {}

  /** Remembers a verified delivery; false when the same timestamp and body were accepted before. */
  accept(timestamp: number, rawBody: Buffer, nowSeconds: number): boolean {
    const key = createHash("sha256").update(`${timestamp}.`).update(rawBody).digest("hex");
    const expiry = this.expiries.get(key);
    if (expiry !== undefined && expiry >= nowSeconds) return false;
    this.expiries.set(key, timestamp + TOLERANCE_SECONDS);
    if (this.expiries.size > this.max) this.forget(nowSeconds);
    return true;
  }

  get size(): number {
    return this.expiries.size;
  }

  /** Drops expired entries; when every entry is still live, the oldest accepted goes. */
  private forget(nowSeconds: number): void {
    for (const [key, expiry] of this.expiries) if (expiry < nowSeconds) this.expiries.delete(key);
    if (this.expiries.size > this.max) this.expiries.delete(this.expiries.keys().next().value as string);
  }
}
