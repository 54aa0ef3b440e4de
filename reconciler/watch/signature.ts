/**
 * The service's webhook signature: `X-Krova-Signature: t=<unix seconds>,v1=<hex>`, v1 = HMAC-SHA256(secret, `${t}.${raw body}`); fields in any
 * order, unknown ones ignored, t a canonical integer, 300 s tolerance either way, compared in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const TOLERANCE_SECONDS = 300;

export type SignatureVerdict =
  | { ok: true; timestamp: number }
  | { ok: false; error: "malformed_header" | "timestamp_out_of_tolerance" | "invalid_signature" };

export function verifySignature(
  header: string | undefined,
  rawBody: Buffer,
  secrets: readonly string[],
  nowSeconds: number,
): SignatureVerdict {
  const fields = (header ?? "").split(",").map((part) => part.trim().split("="));
  const t = fields.find(([key]) => key === "t")?.[1];
  const candidates = fields
    .filter(([key, value]) => key === "v1" && value !== undefined && /^[0-9a-f]{64}$/.test(value))
    .map(([, value]) => Buffer.from(value!, "hex"));
  if (t === undefined || !/^(0|[1-9][0-9]*)$/.test(t) || candidates.length === 0) return { ok: false, error: "malformed_header" };
  if (Math.abs(nowSeconds - Number(t)) > TOLERANCE_SECONDS) return { ok: false, error: "timestamp_out_of_tolerance" };
  for (const secret of secrets) {
    const expected = createHmac("sha256", secret).update(`${t}.`).update(rawBody).digest();
    if (candidates.some((candidate) => timingSafeEqual(candidate, expected))) return { ok: true, timestamp: Number(t) };
  }
  return { ok: false, error: "invalid_signature" };
}
