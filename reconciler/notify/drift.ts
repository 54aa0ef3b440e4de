/**
 * Drift told once: each drifted resource by a fingerprint of what differs (its address, action and changed fields with their values, never
 * when), sent in one `drift.detected` when first seen and again only when it changes or after it was repaired. A resource detected again and
 * again (repaired, then drifting anew: FLAP.threshold detections within FLAP.windowMs) is summarised once in `drift.flapping`, then nothing is
 * sent about it until it has been quiet for a window.
 */
import { createHash } from "node:crypto";
import type { FieldChange, ResourceChange } from "../../engine/index.js";

export const FLAP = { threshold: 3, windowMs: 60 * 60 * 1000 };

/** What a notification says of one drifted resource. */
export interface DriftEntry {
  address: string;
  action: string;
  fields: { path: string; live?: unknown; desired?: unknown }[];
  blocked?: string;
  unmanaged?: true;
  fingerprint: string;
}

/** Longer values are left out of a notification (a userData script is not a message). */
const MAX_SHOWN_VALUE = 200;

export function driftEntry(change: ResourceChange): DriftEntry {
  const fields = [...change.changes].sort((a, b) => a.path.localeCompare(b.path));
  const fingerprint = createHash("sha256")
    .update(JSON.stringify([change.address, change.action, fields.map((f) => [f.path, f.before, f.after]), change.blocked?.code ?? null]))
    .digest("hex")
    .slice(0, 16);
  return {
    address: change.address,
    action: change.action,
    fields: fields.map(shownField),
    ...(change.blocked ? { blocked: change.blocked.reason } : {}),
    ...(change.unmanaged ? { unmanaged: true as const } : {}),
    fingerprint,
  };
}

function shownField(field: FieldChange): DriftEntry["fields"][number] {
  return { path: field.path, ...shown("live", field.before), ...shown("desired", field.after) };
}

function shown(key: "live" | "desired", value: unknown): Record<string, unknown> {
  if (value === null || typeof value === "number" || typeof value === "boolean") return { [key]: value };
  if (typeof value === "string" && value.length <= MAX_SHOWN_VALUE) return { [key]: value };
  return {};
}

/** The fingerprint of a set of drifted resources (an event's). */
export function setFingerprint(entries: readonly DriftEntry[]): string {
  return createHash("sha256")
    .update(
      entries
        .map((e) => `${e.address} ${e.fingerprint}`)
        .sort()
        .join("\n"),
    )
    .digest("hex")
    .slice(0, 16);
}

interface Tracked {
  fingerprint: string;
  /** Detected and not repaired or gone since. */
  open: boolean;
  /** When it was detected, within the last window. */
  detections: number[];
  flapping: boolean;
}

export interface DriftNews {
  detected: DriftEntry[];
  repaired: (DriftEntry & { by: "cubeform" | "outside" })[];
  flapping: { address: string; detections: number; windowSeconds: number }[];
}

export class DriftTracker {
  private readonly tracked = new Map<string, Tracked>();

  constructor(private readonly flap = FLAP) {}

  /**
   * One round's view: `drift` as its plan found it (before any apply), `repaired` what its apply carried out. A resource that was open and
   * is neither drifted nor repaired now no longer differs (someone else fixed it, or the file changed): it is reported repaired "outside".
   */
  observe(drift: readonly DriftEntry[], repairedAddresses: ReadonlySet<string>, now: number): DriftNews {
    const news: DriftNews = { detected: [], repaired: [], flapping: [] };
    const current = new Map(drift.map((entry) => [entry.address, entry]));
    for (const entry of drift) this.detect(entry, now, news);
    for (const [address, state] of this.tracked) {
      const entry = current.get(address);
      const repairedHere = repairedAddresses.has(address);
      if (!state.open || (entry !== undefined && !repairedHere)) continue;
      state.open = false;
      if (!state.flapping) news.repaired.push({ ...(entry ?? closedEntry(address, state)), by: repairedHere ? "cubeform" : "outside" });
    }
    this.forget(now);
    return news;
  }

  private detect(entry: DriftEntry, now: number, news: DriftNews): void {
    const state = this.tracked.get(entry.address) ?? { fingerprint: "", open: false, detections: [], flapping: false };
    this.tracked.set(entry.address, state);
    if (state.open && state.fingerprint === entry.fingerprint) return;
    state.fingerprint = entry.fingerprint;
    state.open = true;
    state.detections = [...state.detections.filter((at) => now - at < this.flap.windowMs), now];
    if (state.flapping) return;
    if (state.detections.length >= this.flap.threshold) {
      state.flapping = true;
      news.flapping.push({
        address: entry.address,
        detections: state.detections.length,
        windowSeconds: Math.round(this.flap.windowMs / 1000),
      });
      return;
    }
    news.detected.push(entry);
  }

  /** A flapping resource quiet for a window settles (told again from then on); closed ones with no recent detection are forgotten. */
  private forget(now: number): void {
    for (const [address, state] of this.tracked) {
      state.detections = state.detections.filter((at) => now - at < this.flap.windowMs);
      if (state.detections.length > 0) continue;
      if (state.flapping) state.flapping = false;
      if (!state.open) this.tracked.delete(address);
    }
  }
}

function closedEntry(address: string, state: Tracked): DriftEntry {
  return { address, action: "noop", fields: [], fingerprint: state.fingerprint };
}
