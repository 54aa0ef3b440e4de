/**
 * `--format json` of plan and drift, formatVersion 2 (the output for scripts):
 *   - `changes` stays complete, one entry per address, noop included; a noop entry that is
 *     neither blocked nor unmanaged omits `before` and `after` (they would be equal);
 *   - `priorState` is left out: it serves the stale-plan check of a saved plan, and
 *     `plan --out` writes it (that file keeps the engine's Plan, formatVersion 1).
 * Version 1 printed every noop with both bodies plus priorState: 64 MB for 10,000 cubes.
 *
 * The text is written in chunks as it is made, never as one string of the whole plan.
 */
import type { Plan, ResourceChange } from "../../engine/types.js";
import type { DriftReport } from "./types.js";

export const JSON_FORMAT_VERSION = 2;

export type PlanJson = Omit<Plan, "formatVersion" | "priorState"> & { formatVersion: typeof JSON_FORMAT_VERSION };

/** What a script receives for one change: bodies only where they say something. */
export function leanChange(change: ResourceChange): ResourceChange | Omit<ResourceChange, "before" | "after"> {
  if (change.action !== "noop" || change.blocked !== undefined || change.unmanaged) return change;
  const { before: _before, after: _after, ...rest } = change;
  return rest;
}

/** The plan as printed, minus its changes (streamed apart). */
function planShell(plan: Plan): PlanJson {
  const { formatVersion: _version, priorState: _prior, ...rest } = plan;
  return { formatVersion: JSON_FORMAT_VERSION, ...rest, changes: [] };
}

/** Pretty JSON (2 spaces) of `value`, with its top-level `changes: []` filled from `changes` entry by entry. */
function* withStreamedChanges(value: object, changes: ResourceChange[], indent: string): Generator<string> {
  const shell = JSON.stringify(value, null, 2);
  const marker = `\n${indent}"changes": []`;
  const at = shell.indexOf(marker);
  if (changes.length === 0 || at < 0) {
    yield `${shell}\n`;
    return;
  }
  yield `${shell.slice(0, at)}\n${indent}"changes": [`;
  const inner = `${indent}  `;
  for (let i = 0; i < changes.length; i++) {
    const entry = JSON.stringify(leanChange(changes[i] as ResourceChange), null, 2).replaceAll("\n", `\n${inner}`);
    yield `${i === 0 ? "" : ","}\n${inner}${entry}`;
  }
  yield `\n${indent}]${shell.slice(at + marker.length)}\n`;
}

export function planJsonChunks(plan: Plan): Generator<string> {
  return withStreamedChanges(planShell(plan), plan.changes, "  ");
}

export function driftJsonChunks(report: DriftReport): Generator<string> {
  const { formatVersion: _version, plan, ...rest } = report;
  return withStreamedChanges({ formatVersion: JSON_FORMAT_VERSION, plan: planShell(plan), ...rest }, plan.changes, "    ");
}

/** Writes chunks in batches of about 64 KB (one write per chunk would be a syscall per change). */
export function writeChunks(out: NodeJS.WritableStream, chunks: Iterable<string>): void {
  const BATCH = 64 * 1024;
  let pending: string[] = [];
  let size = 0;
  for (const chunk of chunks) {
    pending.push(chunk);
    size += chunk.length;
    if (size >= BATCH) {
      out.write(pending.join(""));
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) out.write(pending.join(""));
}

export function joinChunks(chunks: Iterable<string>): string {
  return [...chunks].join("");
}
