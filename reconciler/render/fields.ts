/**
 * The fields of one change, Terraform-style, for the text plan and drift: one field per line, wrapped to the output's width, a string never cut.
 *
 *   + field: value            created (every field the create sends)
 *   - field: value            destroyed
 *   ~ field: old → new        changed in place (only what the update sends)
 *
 * A replacement shows every field of the new resource, those that differ as `~`. Nested objects open one member per line; deeper values stay on one
 * line when they fit.
 */
import { KNOWN_AFTER_APPLY, SENSITIVE } from "../../engine/light.js";
import { isReplace, type FieldChange, type ResourceChange } from "../../engine/types.js";
import { escapeText as t } from "./escape.js";

export const DEFAULT_WIDTH = 80;
/** Below this the layout would break more than it helps. */
const MIN_WIDTH = 40;
const STEP = "    ";
const MARKERS = new Set<string>([SENSITIVE, KNOWN_AFTER_APPLY]);

type Symbol = "+" | "-" | "~" | " ";

export interface FieldLayout {
  width: number;
  /** Where the symbol of a top-level field goes. */
  indent: string;
  /** The order of a domain's settings in the file (keys first to last); others keep theirs. */
  keyOrder?: string[];
}

/** The lines under a change's address. */
export function changeFieldLines(change: ResourceChange, layout: FieldLayout): string[] {
  const fit = { ...layout, width: Math.max(MIN_WIDTH, layout.width) };
  if (change.action === "create") return viewLines(change.after ?? null, "+", fit);
  if (change.action === "delete") return viewLines(change.before ?? null, "-", fit);
  if (isReplace(change.action)) return replaceLines(change, fit);
  return fieldChangeLines(change.changes, fit);
}

/** `~ path: old → new` for each field change (drift and updates). */
export function fieldChangeLines(changes: FieldChange[], layout: FieldLayout): string[] {
  const fit = { ...layout, width: Math.max(MIN_WIDTH, layout.width) };
  return byFileOrder(changes, (f) => f.path.slice(f.path.lastIndexOf(".") + 1), fit.keyOrder).flatMap((f) =>
    changedField(f.path, f.before, f.after, f.forcesReplace, fit.indent, fit.width),
  );
}

/** One value on one line: JSON for data, markers as they are. */
export function inlineValue(value: unknown): string {
  if (value === undefined) return "(unset)";
  if (value === null) return "null";
  if (typeof value === "string") return MARKERS.has(value) ? value : t(JSON.stringify(value));
  if (Array.isArray(value)) return `[${value.map(inlineValue).join(", ")}]`;
  if (typeof value === "object") {
    const members = Object.entries(value).filter(([, member]) => member !== undefined);
    return members.length === 0 ? "{}" : `{ ${members.map(([key, member]) => `${t(key)}: ${inlineValue(member)}`).join(", ")} }`;
  }
  return String(value);
}

function viewLines(view: Record<string, unknown> | null, symbol: Symbol, layout: FieldLayout): string[] {
  if (view === null) return [];
  return viewEntries(view, layout.keyOrder).flatMap(([key, value]) =>
    fieldOrGroup(key, value, symbol, layout.indent, layout.width, layout.keyOrder),
  );
}

/** A plain object opens as a group, one member per line; anything else is one field. */
function fieldOrGroup(
  key: string,
  value: unknown,
  symbol: Symbol,
  indent: string,
  width: number,
  keyOrder: string[] | undefined,
): string[] {
  if (!isPlainObject(value)) return field(`${symbol} ${t(key)}: `, value, indent, width);
  const members = memberEntries(value, keyOrder);
  return [`${indent}${symbol} ${t(key)}:`, ...members.flatMap(([k, v]) => field(`${symbol} ${t(k)}: `, v, indent + STEP, width))];
}

/** Every field the new resource will have; the differing ones as changes. */
function replaceLines(change: ResourceChange, layout: FieldLayout): string[] {
  const byPath = new Map(change.changes.map((f) => [f.path, f]));
  const shown = new Set<string>();
  const lines: string[] = [];
  const render = (path: string, value: unknown, indent: string, label: string): string[] => {
    const f = byPath.get(path);
    if (f === undefined) return field(`  ${t(label)}: `, value, indent, layout.width);
    shown.add(path);
    return changedField(label, f.before, f.after, f.forcesReplace, indent, layout.width);
  };
  for (const [key, value] of viewEntries(change.after ?? {}, layout.keyOrder)) {
    if (!isPlainObject(value)) {
      lines.push(...render(key, value, layout.indent, key));
      continue;
    }
    lines.push(`${layout.indent}${[...byPath.keys()].some((path) => path.startsWith(`${key}.`)) ? "~" : " "} ${t(key)}:`);
    for (const [member, v] of memberEntries(value, layout.keyOrder))
      lines.push(...render(`${key}.${member}`, v, layout.indent + STEP, member));
    shown.add(key);
  }
  // Changes that have no field in the new view (a domain moving to a cube made by this apply).
  for (const f of change.changes)
    if (!shown.has(f.path)) lines.push(...changedField(f.path, f.before, f.after, f.forcesReplace, layout.indent, layout.width));
  return lines;
}

/** `~ label: old → new` on one line when it fits; else old and new as their own blocks. */
function changedField(label: string, before: unknown, after: unknown, forcesReplace: boolean, indent: string, width: number): string[] {
  const note = forcesReplace ? "  (forces replacement)" : "";
  const one = `${indent}~ ${t(label)}: ${inlineValue(before)} → ${inlineValue(after)}${note}`;
  if (one.length <= width) return [one];
  return [`${indent}~ ${t(label)}:${note}`, ...field("- ", before, indent + STEP, width), ...field("+ ", after, indent + STEP, width)];
}

/** `prefix value`, the value wrapped or opened as a block when the line would be too long. */
function field(prefix: string, value: unknown, indent: string, width: number): string[] {
  const inner = indent + " ".repeat(2) + STEP;
  const [first = "", ...rest] = valueLines(value, width - indent.length - prefix.length, width - inner.length);
  return [`${indent}${prefix}${first}`, ...rest.map((line) => `${indent}  ${line}`)];
}

/**
 * A value's lines: the first follows the field's label (`first` columns left); the others are
 * relative to the label (block members start with STEP, the closing bracket with nothing).
 */
function valueLines(value: unknown, first: number, rest: number): string[] {
  const one = inlineValue(value);
  if (one.length <= first) return [one];
  if (Array.isArray(value) && value.length > 0) {
    const items = value.flatMap((item) => withComma(valueLines(item, rest - 1, rest - STEP.length)));
    return ["[", ...items.map((line) => STEP + line), "]"];
  }
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    const members = Object.entries(value).flatMap(([key, member]) => {
      const [head = "", ...tail] = valueLines(member, rest - key.length - 2, rest - STEP.length);
      return [`${t(key)}: ${head}`, ...tail];
    });
    return ["{", ...members.map((line) => STEP + line), "}"];
  }
  // A string is never cut (an SSH key, a URL): a line past the width still copies as one value.
  return [one];
}

function withComma(lines: string[]): string[] {
  return lines.map((line, i) => (i === lines.length - 1 ? `${line},` : line));
}

/** A long string cut into lines, at a space when there is one in the line's second half. */
export function wrap(text: string, first: number, rest: number): string[] {
  const lines: string[] = [];
  let remaining = text;
  let room = Math.max(first, 10);
  while (remaining.length > room) {
    const space = remaining.lastIndexOf(" ", room - 1);
    const cut = space > room / 2 ? space + 1 : room;
    lines.push(remaining.slice(0, cut));
    remaining = remaining.slice(cut);
    room = Math.max(rest, 10);
  }
  lines.push(remaining);
  return lines;
}

/** A view's fields worth showing: no id, nothing unset; plain fields first, then groups, each in file order when known. */
function viewEntries(view: Record<string, unknown>, keyOrder: string[] | undefined): [string, unknown][] {
  const ranked = memberEntries(view, keyOrder);
  return [...ranked.filter(([, v]) => !isPlainObject(v)), ...ranked.filter(([, v]) => isPlainObject(v))];
}

/** The members of a group worth showing, in file order when known. */
function memberEntries(group: Record<string, unknown>, keyOrder: string[] | undefined): [string, unknown][] {
  const entries = Object.entries(group).filter(([key, value]) => key !== "id" && !isEmpty(value));
  return byFileOrder(entries, ([key]) => key, keyOrder);
}

/** Items whose key is in keyOrder first, in that order; the others after them, as they were. */
function byFileOrder<T>(items: T[], keyOf: (item: T) => string, keyOrder: string[] | undefined): T[] {
  if (keyOrder === undefined || keyOrder.length === 0) return items;
  const rank = (item: T): number => {
    const i = keyOrder.indexOf(keyOf(item));
    return i === -1 ? keyOrder.length : i;
  };
  return items
    .map((item, index) => ({ item, index, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.item);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Unset: null, or an object with nothing in it. An empty list is a value (a port open to everyone). */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  return isPlainObject(value) && Object.values(value).every((member) => member === undefined || member === null);
}
