/** Value comparisons shared by every diff rule: the API and the file spell "nothing" differently. */
import type { CubeState } from "../schema/api.js";

/** Sensitive values are never shown; this marker stands in for them in views and field changes. */
export const SENSITIVE = "(sensitive)";
/** A value that exists only once the apply has run (e.g. the id of a cube created by it). */
export const KNOWN_AFTER_APPLY = "(known after apply)";

/**
 * One spelling per meaning: undefined, null, [] and {} (also objects whose members are all
 * empty) become null; object keys are sorted so that key order never matters.
 */
export function canonical(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object") return value;
  if (Array.isArray(value)) return value.length === 0 ? null : value.map(canonical);
  // One pass over the sorted keys (this runs for every field of every domain of a plan).
  let out: Record<string, unknown> | null = null;
  for (const key of Object.keys(value).sort()) {
    const member = canonical((value as Record<string, unknown>)[key]);
    if (member === null) continue;
    out ??= {};
    // A header named __proto__ is a key like any other, not the object's prototype.
    if (key === "__proto__") Object.defineProperty(out, key, { value: member, enumerable: true, writable: true, configurable: true });
    else out[key] = member;
  }
  return out;
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Lists whose order has no meaning (CIDR allow/deny lists). */
export function sameSet(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  return sameValue(sortedOrNull(a), sortedOrNull(b));
}

export function sortedOrNull(list: readonly string[] | null | undefined): string[] | null {
  return list && list.length > 0 ? [...new Set(list)].sort() : null;
}

/** Which side of the power switch a live state is on. */
export type PowerSide = "running" | "stopped" | "error" | "deleted";

const POWER_SIDES: Record<CubeState, PowerSide> = {
  pending: "running",
  booting: "running",
  running: "running",
  resizing: "running",
  stopped: "stopped",
  stopping: "stopped",
  error: "error",
  deleted: "deleted",
};

export const powerSide = (state: CubeState): PowerSide => POWER_SIDES[state];
