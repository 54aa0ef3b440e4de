/** Idempotency-Key: per Space, 24 h (emulated). Only 2xx outcomes are stored: a refused request is evaluated afresh. */
import { createHash } from "node:crypto";
import type { Core } from "./core.js";
import type { ApiRequest, ApiResponse } from "./http.js";
import type { IdempotencyRecord } from "./state.js";

export const IDEMPOTENCY_KEY_MAX = 255;
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

function recordId(spaceId: string, key: string): string {
  return `${spaceId}\u0000${key}`;
}

export function fingerprint(req: ApiRequest): string {
  return createHash("sha256").update(`${req.method} ${req.path}\n${req.body}`).digest("hex");
}

export function findReplay(core: Core, spaceId: string, key: string, now: number): IdempotencyRecord | undefined {
  const record = core.index.idempotency.get(recordId(spaceId, key));
  if (record && now - record.storedAt < IDEMPOTENCY_TTL_MS) return record;
  return undefined;
}

export function storeOutcome(core: Core, spaceId: string, key: string, req: ApiRequest, response: ApiResponse, now: number): void {
  if (response.status < 200 || response.status >= 300) return;
  core.index.idempotency.deleteStoredBefore(now - IDEMPOTENCY_TTL_MS + 1);
  core.index.idempotency.put(recordId(spaceId, key), {
    spaceId,
    key,
    fingerprint: fingerprint(req),
    status: response.status,
    body: response.body,
    storedAt: now,
  });
}
