/**
 * `--format json` of plan and drift, formatVersion 5 (4 had `priorStateDigest`; 3 listed policy violations already live one by one, 4 groups them
 * in `policy.existing`): every address in `changes`, a plain noop without `before`/`after`; neither `priorState` nor its digest (only `plan --out`
 * needs them); bodies named as the file names fields. Compact, written in chunks as fast as the reader takes them.
 */
import { isOverBudget, withoutNoopBodies } from "../../engine/index.js";
import type { Plan, PlanSummary, ResourceChange } from "../../engine/types.js";
import { whenDrained } from "../io.js";
import type { DriftReport } from "./types.js";

export const JSON_FORMAT_VERSION = 5;

export type PlanJson = Omit<Plan, "formatVersion" | "priorState" | "priorStateDigest" | "changes"> & {
  formatVersion: typeof JSON_FORMAT_VERSION;
  changes: ResourceChange[];
};

/** What a script receives for one change: bodies only where they say something. */
export const leanChange: (change: ResourceChange) => ResourceChange = withoutNoopBodies;

/** What a plan makes when first read (engine/plan.ts buildPlan) and only a saved plan needs. */
const SAVED_ONLY = new Set(["formatVersion", "priorState", "priorStateDigest"]);

/** Without reading `priorState` or its digest. */
function leanPlan(plan: Plan): PlanJson {
  const shown = Object.keys(plan).filter((key) => !SAVED_ONLY.has(key));
  const rest = Object.fromEntries(shown.map((key) => [key, plan[key as keyof Plan]])) as Omit<PlanJson, "formatVersion">;
  return { formatVersion: JSON_FORMAT_VERSION, ...rest, summary: summaryWithBudget(plan), changes: plan.changes.map(leanChange) };
}

/** Over the budget, apply makes none of the changes: `summary.blocked` counts them with the changes blocked one by one. */
function summaryWithBudget(plan: Plan): PlanSummary {
  if (!isOverBudget(plan.cost)) return plan.summary;
  const refused = plan.changes.filter((c) => c.action !== "noop" && c.blocked === undefined).length;
  return { ...plan.summary, blocked: plan.summary.blocked + refused };
}

export function planJsonChunks(plan: Plan): Generator<string> {
  return jsonChunks(leanPlan(plan));
}

export function driftJsonChunks(report: DriftReport): Generator<string> {
  const { formatVersion: _version, plan, ...rest } = report;
  return jsonChunks({ formatVersion: JSON_FORMAT_VERSION, plan: leanPlan(plan), ...rest }, 3);
}

/**
 * The text of `JSON.stringify(value)` plus a final line break, in pieces: objects down to `depth` levels are opened member by member, and a long
 * array among them is stringified in groups (one string of a 30,000-cube plan's changes is tens of MB). For plain data (no toJSON, no functions).
 */
export function* jsonChunks(value: unknown, depth = 2): Generator<string> {
  yield* compact(value, depth);
  yield "\n";
}

function* compact(value: unknown, depth: number): Generator<string> {
  if (Array.isArray(value) && value.length > LONG_LIST) {
    for (let from = 0; from < value.length; from += LONG_LIST)
      yield `${from === 0 ? "[" : ","}${JSON.stringify(value.slice(from, from + LONG_LIST)).slice(1, -1)}`;
    yield "]";
    return;
  }
  if (depth <= 0 || typeof value !== "object" || value === null || Array.isArray(value)) {
    yield JSON.stringify(value) ?? "null";
    return;
  }
  let separator = "{";
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || typeof member === "function") continue;
    yield `${separator}${JSON.stringify(key)}:`;
    separator = ",";
    yield* compact(member, depth - 1);
  }
  yield separator === "{" ? "{}" : "}";
}

/** Lists longer than this are stringified in groups of this many items. */
const LONG_LIST = 256;

/** Chunks joined into strings of about 64 KB (one write per chunk would be a syscall per change). */
export function* batches(chunks: Iterable<string>, size = 64 * 1024): Generator<string> {
  let pending: string[] = [];
  let length = 0;
  for (const chunk of chunks) {
    pending.push(chunk);
    length += chunk.length;
    if (length >= size) {
      yield pending.join("");
      pending = [];
      length = 0;
    }
  }
  if (pending.length > 0) yield pending.join("");
}

/**
 * Writes the chunks in batches, waiting for the stream to drain when it asks to: standard output to a pipe is asynchronous, and a plan written
 * without waiting sits whole in its buffer (~50 MB for 30,000 cubes) until the reader catches up.
 */
export async function writeChunks(out: NodeJS.WritableStream, chunks: Iterable<string>): Promise<void> {
  for (const batch of batches(chunks)) {
    if (out.write(batch) === false) await new Promise<void>((resolve) => whenDrained(out, resolve));
  }
}
