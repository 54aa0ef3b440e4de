/**
 * The light way to read a large desired-state file: the `cubes:` block sequence is cut into
 * one small YAML text per cube, each parsed on its own and dropped once converted.
 *
 * Why: the yaml library builds the CST of a whole document before composing it (170 MB live
 * for a 3.5 MB file of 10,000 cubes, 330 MB peak RSS). Per cube, only one cube's CST and
 * nodes are alive at a time.
 *
 * Only a plainly shaped file is cut: one top-level `cubes:` line followed by its block
 * sequence, no anchors or aliases (`&`, `*`), no directives or document markers. Anything
 * else — and any parse error in a piece — returns undefined, and the caller parses the whole
 * file as one document (which is also where errors get their positions).
 *
 * Each piece is read by js-yaml (~15× faster than the yaml library per cube, which is most of
 * a large plan's load) with YAML 1.2's core schema exactly as the yaml library resolves it;
 * a piece js-yaml rejects is read again by the yaml library, whose verdict counts.
 */
import jsyaml from "js-yaml";
import { isSeq, parseDocument } from "yaml";
import type { Position } from "./render/types.js";

export interface SplitResult<T> {
  /** The document as JavaScript without its cubes (`cubes: null`). */
  head: Record<string, unknown>;
  /** Each cube item, as `convert` made it. */
  cubes: T[];
  /** Where each cube item starts (1-based), in order. */
  cubeStarts: Position[];
}

interface Piece {
  text: string;
  /** 0-based line of the piece's first line in the file. */
  firstLine: number;
}

/** Directives, document markers, and anchors or aliases (`&a`, `*a` where a node starts). */
const UNSUPPORTED = /^(?:---|\.\.\.|%)|(?:^|[\s[{,])[&*][^\s\]},]/m;
const CUBES_KEY = /^cubes:[ \t]*(?:#.*)?\r?$/;
const BLANK_OR_COMMENT = /^[ \t]*(?:#.*)?\r?$/;
const ITEM_START = /^( *)-(?:[ \t]|\r?$)/;
const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: true } as const;

/**
 * `convert` turns each cube's JavaScript value into what is kept (undefined: give up), so the
 * raw values of all cubes are never alive at once.
 */
export function parseSplit<T = unknown>(source: string, convert: (cube: unknown) => T | undefined = (cube) => cube as T): SplitResult<T> | undefined {
  if (UNSUPPORTED.test(source)) return undefined;
  const lines = source.split("\n");
  const cubesAt = singleCubesLine(lines);
  if (cubesAt === undefined) return undefined;
  const split = splitItems(lines, cubesAt);
  if (split === undefined) return undefined;
  // Each text ends with a line break: a last line may end in a lone "\r" (CRLF files).
  const head = parseHead(`${[...lines.slice(0, cubesAt + 1), ...lines.slice(split.end)].join("\n")}\n`);
  if (head === undefined) return undefined;
  const cubes: T[] = [];
  const cubeStarts: Position[] = [];
  for (const piece of split.items) {
    const item = parseItem(piece);
    const cube = item === undefined ? undefined : convert(item.value);
    if (item === undefined || cube === undefined) return undefined;
    cubes.push(cube);
    cubeStarts.push(item.start);
  }
  return { head, cubes, cubeStarts };
}

function singleCubesLine(lines: string[]): number | undefined {
  let found: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    if (!CUBES_KEY.test(lines[i] as string)) continue;
    if (found !== undefined) return undefined;
    found = i;
  }
  return found;
}

/** The sequence's items (each its lines, comments and blank lines after it included) and the line after it. */
function splitItems(lines: string[], cubesAt: number): { items: Piece[]; end: number } | undefined {
  const items: Piece[] = [];
  let indent: number | undefined;
  let current: string[] | undefined;
  let line = cubesAt + 1;
  const close = () => {
    if (current) items.push({ text: `${current.join("\n")}\n`, firstLine: line - current.length });
  };
  for (; line < lines.length; line++) {
    const text = lines[line] as string;
    if (BLANK_OR_COMMENT.test(text)) {
      current?.push(text);
      continue;
    }
    const item = ITEM_START.exec(text);
    const lead = text.length - text.trimStart().length;
    indent ??= item?.[1]?.length;
    if (indent === undefined) return undefined;
    if (item && item[1]?.length === indent) {
      close();
      current = [text];
    } else if (lead > indent && current) current.push(text);
    else if (lead === 0) break;
    else return undefined;
  }
  close();
  return items.length > 0 ? { items, end: line } : undefined;
}

/**
 * The yaml library's YAML 1.2 core schema (yaml/dist/schema/core) for js-yaml: js-yaml's own
 * CORE_SCHEMA also reads 0b…, signed hex and octal, and fewer floats (-.5 stays a string).
 */
const CORE_SCHEMA = jsyaml.FAILSAFE_SCHEMA.extend({
  implicit: [
    scalarType("null", /^(?:~|[Nn]ull|NULL)?$/, () => null),
    scalarType("bool", /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (s) => s[0] === "t" || s[0] === "T"),
    scalarType("int", /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/, (s) => (s.startsWith("0o") ? parseInt(s.slice(2), 8) : s.startsWith("0x") ? parseInt(s.slice(2), 16) : parseInt(s, 10))),
    scalarType("float", /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/, (s) =>
      /nan$/i.test(s) ? NaN : /inf$/i.test(s) ? (s[0] === "-" ? -Infinity : Infinity) : parseFloat(s),
    ),
  ],
});

function scalarType(name: string, pattern: RegExp, construct: (text: string) => unknown): jsyaml.Type {
  return new jsyaml.Type(`tag:yaml.org,2002:${name}`, {
    kind: "scalar",
    resolve: (data: string | null) => pattern.test(data ?? ""),
    construct: (data: string | null) => construct(data ?? ""),
  });
}

/** js-yaml's reading of a text, or undefined when it rejects it. */
function fastLoad(text: string): { value: unknown } | undefined {
  try {
    return { value: jsyaml.load(text, { schema: CORE_SCHEMA }) };
  } catch {
    return undefined;
  }
}

function parseHead(text: string): Record<string, unknown> | undefined {
  const fast = fastLoad(text);
  const value = fast ? fast.value : parseDocumentToJs(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const head = value as Record<string, unknown>;
  return head.cubes === null ? head : undefined;
}

function parseDocumentToJs(text: string): unknown {
  const doc = parseDocument(text, PARSE_OPTIONS);
  return doc.errors.length > 0 || doc.warnings.some(isUnknownLocalTag) ? undefined : (doc.toJS() as unknown);
}

function parseItem(piece: Piece): { value: unknown; start: Position } | undefined {
  const fast = fastLoad(piece.text);
  const start = fast && Array.isArray(fast.value) && fast.value.length === 1 ? itemStart(piece) : undefined;
  if (fast && start) return { value: (fast.value as unknown[])[0], start };
  return parseItemPositioned(piece);
}

/**
 * Where the item's node starts, as the yaml library places it: after the "- " on the item's
 * line, or on the next line with content when that line has none. Undefined for anything else.
 */
function itemStart(piece: Piece): Position | undefined {
  const lines = piece.text.split("\n", 64);
  const first = /^( *-[ \t]*)(.?)/.exec(lines[0] ?? "");
  if (!first) return undefined;
  if (first[2] !== "" && first[2] !== "#" && first[2] !== "\r") return plainStart(first[2]!) ? { line: piece.firstLine + 1, col: (first[1]?.length ?? 0) + 1 } : undefined;
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i] as string;
    if (BLANK_OR_COMMENT.test(text)) continue;
    const lead = text.length - text.trimStart().length;
    return plainStart(text[lead] ?? "") ? { line: piece.firstLine + i + 1, col: lead + 1 } : undefined;
  }
  return undefined;
}

/** A node that starts with its content (no tag, anchor or flow/block indicator before it). */
function plainStart(char: string): boolean {
  return /[A-Za-z0-9_"']/.test(char);
}

function parseItemPositioned(piece: Piece): { value: unknown; start: Position } | undefined {
  const doc = parseDocument(piece.text, PARSE_OPTIONS);
  if (doc.errors.length > 0 || doc.warnings.some(isUnknownLocalTag) || !isSeq(doc.contents) || doc.contents.items.length !== 1) return undefined;
  const offset = (doc.contents.items[0] as { range?: [number, number, number] } | null)?.range?.[0];
  if (offset === undefined) return undefined;
  const value = (doc.toJS() as unknown[])[0];
  return { value, start: positionIn(piece, offset) };
}

function positionIn(piece: Piece, offset: number): Position {
  let line = piece.firstLine + 1;
  let lineStart = 0;
  for (let i = piece.text.indexOf("\n"); i >= 0 && i < offset; i = piece.text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/** A tag of the user's own (`!vault`, `!secret`): yaml would read it as a plain string; the positioned load reports it. */
export function isUnknownLocalTag(warning: { code: string; message: string }): boolean {
  return warning.code === "TAG_RESOLVE_FAILED" && warning.message.startsWith("Unresolved tag: !");
}
