/**
 * How a notification is signed: `X-Cubeform-Signature: t=<unix seconds>,v1=<hex>`, v1 = HMAC-SHA256(secret, `${t}.${raw body}`), the scheme of
 * the service's own webhooks (watch/signature.ts verifies theirs the same way). The timestamp is signed with the body, so a receiver that refuses
 * a t more than 300 s away and an event id it has seen refuses a replay. Each attempt is signed afresh (a retry later than 300 s still verifies).
 */
import { createHmac } from "node:crypto";

export const SIGNATURE_HEADER = "x-cubeform-signature";

export function signatureHeader(secret: string, body: string, nowSeconds: number): string {
  const t = Math.floor(nowSeconds);
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex")}`;
}
