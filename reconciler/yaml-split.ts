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
 */
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

function parseHead(text: string): Record<string, unknown> | undefined {
  const doc = parseDocument(text, PARSE_OPTIONS);
  if (doc.errors.length > 0) return undefined;
  const value = doc.toJS() as unknown;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const head = value as Record<string, unknown>;
  return head.cubes === null ? head : undefined;
}

function parseItem(piece: Piece): { value: unknown; start: Position } | undefined {
  const doc = parseDocument(piece.text, PARSE_OPTIONS);
  if (doc.errors.length > 0 || !isSeq(doc.contents) || doc.contents.items.length !== 1) return undefined;
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
