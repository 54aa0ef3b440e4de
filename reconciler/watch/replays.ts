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

/** Forge pushes (push.ts) remembered to drop replays: a day, the last 1,000 (a push's signature has no timestamp, so no window bounds it). */
const PUSH_MEMORY = { max: 1000, ttlMs: 24 * 60 * 60 * 1000 };

/**
 * Signed forge pushes already accepted, by delivery id and by a digest of the signed body: a push sent again under its id (a retry) or under
 * a new one (a replay of a captured delivery: the body, its signature and its commits are the same) is recognised. Bounded in count and age.
 */
export class AcceptedPushes {
  /** key → when it was first seen (ms); in insertion order, so the oldest is first. */
  private readonly seenAt = new Map<string, number>();

  constructor(private readonly memory = PUSH_MEMORY) {}

  /** Remembers a verified push; false when its delivery id or its body was accepted before. */
  accept(deliveryId: string, rawBody: Buffer, nowMs: number): boolean {
    this.forget(nowMs);
    const keys = [`body ${createHash("sha256").update(rawBody).digest("hex")}`, ...(deliveryId === "" ? [] : [`id ${deliveryId}`])];
    const seen = keys.some((key) => this.seenAt.has(key));
    for (const key of keys) if (!this.seenAt.has(key)) this.seenAt.set(key, nowMs);
    while (this.seenAt.size > 2 * this.memory.max) this.seenAt.delete(this.seenAt.keys().next().value as string);
    return !seen;
  }

  private forget(nowMs: number): void {
    for (const [key, at] of this.seenAt) {
      if (nowMs - at <= this.memory.ttlMs) break;
      this.seenAt.delete(key);
    }
  }
}
