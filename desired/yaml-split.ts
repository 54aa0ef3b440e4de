/**
 * The light way to read a large desired-state file: the `cubes:` block sequence is cut into one small YAML text per cube, each
 * parsed on its own and dropped once converted. The yaml library builds a whole document's CST first (170 MB live for a 3.5 MB
 * file of 10,000 cubes); per cube, one cube's CST is alive at a time. Only a plainly shaped file is cut (one top-level `cubes:`
 * line, no anchors, aliases, directives or document markers); anything else, or a parse error in a piece, answers undefined and
 * the caller parses the whole file, where errors get their positions.
 *
 * js-yaml reads each piece with YAML 1.2's core schema as the yaml library resolves it (a piece it rejects goes to the yaml
 * library, whose verdict counts): ≥ 5× faster on bench/fleet.ts's 10,000 cubes (0.97–1.1 s, 140 MB RSS against 4.9–6.0 s, 370 MB).
 */
import { createRequire } from "node:module";
import jsyaml from "js-yaml";
import type * as Yaml from "yaml";
import type { Position } from "./errors.js";
import { tryOr } from "../system/files.js";

export interface SplitResult<T> {
  /** The document as JavaScript without its cubes (`cubes: null`). */
  head: Record<string, unknown>;
  /** Each cube item, as `convert` made it. */
  cubes: T[];
  /** Where each cube item starts (1-based), in order; undefined for a cube `identify` answered. */
  cubeStarts: (Position | undefined)[];
}

interface Piece {
  /** The piece's lines (without their line breaks). */
  lines: string[];
  /** 0-based line of the piece's first line in the file. */
  firstLine: number;
}

export interface SplitOptions<T> {
  /** Turns each cube's JavaScript value into what is kept (undefined: give up), so the raw values of all cubes are never alive at once. */
  convert?: (cube: unknown) => T | undefined;
  /** Answers a cube from what scanIdentity read in its text, without parsing it (undefined: parse and convert it as usual). */
  identify?: (identity: ScannedIdentity) => T | undefined;
}

/** Directives, document markers, and anchors or aliases (`&a`, `*a` where a node starts). */
export const UNSUPPORTED = /^(?:---|\.\.\.|%)|(?:^|[\s[{,])[&*][^\s\]},]/m;
const CUBES_KEY = /^cubes:[ \t]*(?:#.*)?\r?$/;
const BLANK_OR_COMMENT = /^[ \t]*(?:#.*)?\r?$/;
const ITEM_START = /^( *)-(?:[ \t]|\r?$)/;
/** YAML 1.2's float, as an explicit `!!float` reads it: `!!float 22` is 22 (the yaml library's own float tags need a dot or an exponent). */
const EXPLICIT_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const explicitFloatTag: Yaml.ScalarTag = {
  tag: "tag:yaml.org,2002:float",
  identify: () => false,
  resolve: (text, onError) => {
    if (EXPLICIT_FLOAT.test(text)) return parseFloat(text);
    if (/^[-+]?\.(?:inf|Inf|INF)$/.test(text)) return text.startsWith("-") ? -Infinity : Infinity;
    if (/^\.(?:nan|NaN|NAN)$/.test(text)) return NaN;
    onError(`!!float ${JSON.stringify(text)} is not a number`);
    return text;
  },
};
/**
 * The yaml library's tags as cubeform reads them, for every parse (here and in load.ts): YAML 1.2's core types only. The
 * YAML 1.1 ones it would also resolve (!!omap, !!set, !!pairs, !!binary, !!timestamp) stay unresolved: a Map where a mapping
 * belongs passed as an empty object.
 */
export const TAG_OPTIONS = { resolveKnownTags: false, customTags: [explicitFloatTag] };
const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: true, ...TAG_OPTIONS } as const;

let yamlModule: typeof Yaml | undefined;
/** The yaml library, loaded on first use (a good part of a short command's start-up), synchronously (the Pulumi Fleet component loads in a constructor). */
export function yamlLibrary(): typeof Yaml {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof Yaml;
  return yamlModule;
}

export function parseSplit<T = unknown>(source: string, options: SplitOptions<T> = {}): SplitResult<T> | undefined {
  const convert = options.convert ?? ((cube: unknown) => cube as T);
  // js-yaml refuses a NUL byte anywhere, the yaml library not in a comment: the positioned load says where it is.
  if (UNSUPPORTED.test(source) || source.includes("\0")) return undefined;
  const lines = source.split("\n");
  const cubesAt = singleCubesLine(lines);
  if (cubesAt === undefined) return undefined;
  const split = splitItems(lines, cubesAt);
  if (split === undefined) return undefined;
  // Each text ends with a line break: a last line may end in a lone "\r" (CRLF files).
  const head = parseHead(`${[...lines.slice(0, cubesAt + 1), ...lines.slice(split.end)].join("\n")}\n`);
  if (head === undefined) return undefined;
  const cubes: T[] = [];
  const cubeStarts: (Position | undefined)[] = [];
  const forms: LineForms = new Map();
  for (const piece of split.items) {
    const scanned = options.identify === undefined ? undefined : scanIdentity(piece.lines, forms);
    const identified = scanned === undefined ? undefined : options.identify?.(scanned);
    if (identified !== undefined) {
      cubes.push(identified);
      cubeStarts.push(undefined);
      continue;
    }
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
    // The regex only for lines that can match (a large file has hundreds of thousands).
    if (!(lines[i] as string).startsWith("cubes:") || !CUBES_KEY.test(lines[i] as string)) continue;
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
    if (current) items.push({ lines: current, firstLine: line - current.length });
  };
  for (; line < lines.length; line++) {
    const text = lines[line] as string;
    const shape = lineShape(text);
    if (shape.blank) {
      current?.push(text);
      continue;
    }
    const { lead, itemIndent } = shape;
    indent ??= itemIndent;
    if (indent === undefined) return undefined;
    if (itemIndent === indent) {
      close();
      current = [text];
    } else if (lead > indent && current) current.push(text);
    else if (lead === 0) break;
    else return undefined;
  }
  close();
  return items.length > 0 ? { items, end: line } : undefined;
}

type LineShape = { blank: true } | { blank: false; lead: number; itemIndent: number | undefined };

/**
 * Blank or comment; else its leading white space and, when it starts a sequence item ("- "), the item's indentation. Plain lines
 * (spaces, then content) are read without a regex: a large file has hundreds of thousands.
 */
function lineShape(text: string): LineShape {
  let lead = 0;
  while (text.charCodeAt(lead) === 32) lead++;
  const next = text[lead];
  // Anything but a space before the content (tabs, "\r", other white space) takes the exact way.
  if (next === undefined || next === "#" || next.trim() === "") {
    if (BLANK_OR_COMMENT.test(text)) return { blank: true };
    return { blank: false, lead: text.length - text.trimStart().length, itemIndent: ITEM_START.exec(text)?.[1]?.length };
  }
  const after = text[lead + 1];
  const item = next === "-" && (after === undefined || after === " " || after === "\t" || (after === "\r" && lead + 2 === text.length));
  return { blank: false, lead, itemIndent: item ? lead : undefined };
}

/** The yaml library's YAML 1.2 core schema for js-yaml: js-yaml's CORE_SCHEMA also reads 0b…, signed hex and octal, and fewer floats (-.5 stays a string). */
const CORE_SCHEMA = jsyaml.FAILSAFE_SCHEMA.extend({
  implicit: [
    scalarType("null", /^(?:~|[Nn]ull|NULL)?$/, () => null),
    scalarType("bool", /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (s) => s[0] === "t" || s[0] === "T"),
    scalarType("int", /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/, (s) =>
      s.startsWith("0o") ? parseInt(s.slice(2), 8) : s.startsWith("0x") ? parseInt(s.slice(2), 16) : parseInt(s, 10),
    ),
    scalarType(
      "float",
      /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
      (s) => (/nan$/i.test(s) ? NaN : /inf$/i.test(s) ? (s[0] === "-" ? -Infinity : Infinity) : parseFloat(s)),
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
export function fastLoad(text: string): { value: unknown } | undefined {
  return tryOr(() => ({ value: jsyaml.load(text, { schema: CORE_SCHEMA }) }), undefined);
}

function parseHead(text: string): Record<string, unknown> | undefined {
  const fast = fastLoad(text);
  const value = fast ? fast.value : parseDocumentToJs(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const head = value as Record<string, unknown>;
  return head.cubes === null ? head : undefined;
}

function parseDocumentToJs(text: string): unknown {
  const doc = yamlLibrary().parseDocument(text, PARSE_OPTIONS);
  return doc.errors.length > 0 || doc.warnings.some(isUnresolvedTag) ? undefined : (doc.toJS() as unknown);
}

function parseItem(piece: Piece): { value: unknown; start: Position } | undefined {
  const text = `${piece.lines.join("\n")}\n`;
  const fast = fastLoad(text);
  const start = fast && Array.isArray(fast.value) && fast.value.length === 1 ? itemStart(piece) : undefined;
  if (fast && start) return { value: (fast.value as unknown[])[0], start };
  return parseItemPositioned(piece, text);
}

/** Where the item's node starts, as the yaml library places it: after the item's "- ", or on the next line with content when that has none. */
function itemStart(piece: Piece): Position | undefined {
  const lines = piece.lines;
  const first = /^( *-[ \t]*)(.?)/.exec(lines[0] ?? "");
  if (!first) return undefined;
  if (first[2] !== "" && first[2] !== "#" && first[2] !== "\r")
    return plainStart(first[2]!) ? { line: piece.firstLine + 1, col: (first[1]?.length ?? 0) + 1 } : undefined;
  for (let i = 1; i < lines.length && i < 64; i++) {
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

function parseItemPositioned(piece: Piece, text: string): { value: unknown; start: Position } | undefined {
  const lines = new (yamlLibrary().LineCounter)();
  const doc = yamlLibrary().parseDocument(text, { ...PARSE_OPTIONS, lineCounter: lines });
  if (doc.errors.length > 0 || doc.warnings.some(isUnresolvedTag) || !yamlLibrary().isSeq(doc.contents) || doc.contents.items.length !== 1)
    return undefined;
  const offset = (doc.contents.items[0] as { range?: [number, number, number] } | null)?.range?.[0];
  if (offset === undefined) return undefined;
  const value = (doc.toJS() as unknown[])[0];
  const { line, col } = lines.linePos(offset);
  return { value, start: { line: piece.firstLine + line, col } };
}

/** A tag of the user's own (`!vault`, `!secret`): yaml would read it as a plain string; the positioned load reports it. */
export function isUnknownLocalTag(warning: { code: string; message: string }): boolean {
  return warning.code === "TAG_RESOLVE_FAILED" && warning.message.startsWith("Unresolved tag: !");
}

/** Any tag cubeform does not read (a local one, or a YAML 1.1 type such as !!omap): the positioned load reports it. */
export function isUnresolvedTag(warning: { code: string }): boolean {
  return warning.code === "TAG_RESOLVE_FAILED";
}

/** What identifies a cube: its name, its id, and the hostnames of its domains. */
export interface ScannedIdentity {
  name: string;
  id?: string;
  hostnames: string[];
}

/**
 * A line of the plainest YAML: indentation, an optional "- ", then `key:` with an optional value, or (after a "- ") a value
 * alone; an end-of-line comment after a space. The value is checked by plainValue.
 */
const PLAIN_LINE = /^( *)(- +)?(?:([A-Za-z_][A-Za-z0-9_]*):(?: +(\S[^\t]*?))?|(\S[^\t]*?))(?: +#.*)? *\r?$/;
/** A plain scalar that starts with no indicator and holds no quote, bracket, brace, backslash, ": " or " #". */
const PLAIN_VALUE = /^[^\s#'"{}[\]|>!&*%@`,?:\\-][^\t'"{}[\]\\]*$/;
const NOT_PLAIN_VALUE = /: |:$| #/;
/** One-line flow collections of simple words: [a, b], [], { a: 1, b: x }. */
const FLOW_WORD = "[A-Za-z0-9._/+~=][A-Za-z0-9._/+~=:-]*";
const FLOW_SEQ = new RegExp(`^\\[ *(?:${FLOW_WORD}(?: *, *${FLOW_WORD})* *,? *)?\\]$`);
const FLOW_MAP = new RegExp(`^\\{ *(?:[A-Za-z_][A-Za-z0-9_]*: +${FLOW_WORD}(?: *, *[A-Za-z_][A-Za-z0-9_]*: +${FLOW_WORD})* *,? *)?\\}$`);

function plainValue(value: string): boolean {
  if (value.startsWith("[")) return FLOW_SEQ.test(value) && !/:[ ,\]]/.test(value);
  if (value.startsWith("{")) {
    if (!FLOW_MAP.test(value) || /:[,}]|:\s*:/.test(value)) return false;
    const keys = [...value.matchAll(/([A-Za-z_][A-Za-z0-9_]*): /g)].map((k) => k[1]);
    return (
      new Set(keys).size === keys.length &&
      !value
        .slice(1, -1)
        .split(",")
        .some((pair) => /:\S*:(?:\s|$)/.test(pair) || (pair.match(/: /g)?.length ?? 0) > 1)
    );
  }
  return PLAIN_VALUE.test(value) && !NOT_PLAIN_VALUE.test(value);
}

/** A name, id or hostname read as a string by every YAML schema (no number, bool or null look-alike). */
const PLAIN_WORD = /^[A-Za-z][A-Za-z0-9._-]*$/;
const NOT_STRINGS = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL)$/;

type Role = "cube" | "domains" | "domain" | "other";
interface Frame {
  col: number;
  kind: "map" | "seq";
  role: Role;
  /** A mapping's keys so far (a few: a list is quicker than a Set). */
  keys?: string[];
}

/** A line of the plainest YAML as PLAIN_LINE reads it, its value(s) checked by plainValue. */
interface PlainLine {
  indent: number;
  /** Length of the "- " (0: none). */
  dash: number;
  key: string | undefined;
  value: string | undefined;
}
/** A blank or comment line; a line that is not of the plainest YAML. */
const BLANK = 0;
const NOT_PLAIN = 1;
type LineForm = PlainLine | typeof BLANK | typeof NOT_PLAIN;

function lineForm(text: string): LineForm {
  if (BLANK_OR_COMMENT.test(text)) return BLANK;
  const m = PLAIN_LINE.exec(text);
  if (m === null) return NOT_PLAIN;
  const dash = m[2]?.length ?? 0;
  const value = m[4];
  if ((value !== undefined && !plainValue(value)) || (m[5] !== undefined && (dash === 0 || !plainValue(m[5])))) return NOT_PLAIN;
  return { indent: (m[1] as string).length, dash, key: m[3], value };
}

/**
 * Line forms by text, for one file's scan: most lines of a large file repeat from cube to cube ("    image: ubuntu-24.04"), so
 * each distinct text is matched once. Lines with an identity key (name, id, hostname) are nearly all distinct: not kept.
 */
export type LineForms = Map<string, LineForm>;

function cachedLineForm(text: string, forms: LineForms | undefined): LineForm {
  if (forms === undefined) return lineForm(text);
  let form = forms.get(text);
  if (form === undefined) {
    form = lineForm(text);
    if (typeof form !== "object" || (form.key !== "name" && form.key !== "id" && form.key !== "hostname")) forms.set(text, form);
  }
  return form;
}

/**
 * A cube's identity (`name`, `id`, each `hostname` of its `domains`) read from its piece's lines without parsing them, when every
 * line is of the plainest YAML (PLAIN_LINE; blank and comment lines aside) and indentation alone gives a consistent structure
 * (no duplicate keys, no value continued on a deeper line); else undefined and the caller parses the piece. `forms`: LineForms.
 */
export function scanIdentity(lines: readonly string[], forms?: LineForms): ScannedIdentity | undefined {
  const stack: Frame[] = [];
  let opened: { frame: Frame; key: string } | undefined;
  const found: { name?: string; id?: string; hostnames: string[] } = { hostnames: [] };
  let domainItems = 0;
  for (let i = 0; i < lines.length; i++) {
    const form = cachedLineForm(lines[i] as string, forms);
    if (form === BLANK) continue;
    if (form === NOT_PLAIN) return undefined;
    const { indent, dash, key, value } = form;
    if (i === 0) {
      if (dash === 0 || key === undefined) return undefined;
      stack.push({ col: indent, kind: "seq", role: "other" });
    } else {
      const parent = placeLine(stack, opened, indent, dash > 0);
      if (parent === undefined) return undefined;
    }
    opened = undefined;
    let map = stack[stack.length - 1] as Frame;
    if (dash > 0) {
      const seq = map;
      // Every item of domains is a mapping with a hostname (counted at the end).
      if (seq.role === "domains" && key === undefined) return undefined;
      if (key === undefined) continue;
      map = { col: indent + dash, kind: "map", role: i === 0 ? "cube" : seq.role === "domains" ? "domain" : "other", keys: [] };
      if (map.role === "domain") domainItems++;
      stack.push(map);
    }
    if (key === undefined || map.keys?.includes(key)) return undefined;
    map.keys?.push(key);
    if (value === undefined) opened = { frame: map, key };
    if (!noteIdentity(map.role, key, value, found)) return undefined;
  }
  if (found.name === undefined || found.hostnames.length !== domainItems) return undefined;
  return found.id === undefined
    ? { name: found.name, hostnames: found.hostnames }
    : { name: found.name, id: found.id, hostnames: found.hostnames };
}

/**
 * Puts a line (not the first) in the structure: closes the frames it is left of, opens the one a `key:` with no value starts.
 * Then the top frame is the mapping the line's key belongs to, or the sequence its "- " is an item of. undefined: not consistent.
 */
function placeLine(stack: Frame[], opened: { frame: Frame; key: string } | undefined, indent: number, dash: boolean): Frame | undefined {
  if (opened !== undefined && (indent > opened.frame.col || (dash && indent === opened.frame.col))) {
    // The value of the key that ended the previous line: a nested mapping or sequence.
    const domains = opened.frame.role === "cube" && opened.key === "domains";
    if (domains && !dash) return undefined;
    const role: Role = domains ? "domains" : "other";
    const frame: Frame = dash ? { col: indent, kind: "seq", role } : { col: indent, kind: "map", role: "other", keys: [] };
    stack.push(frame);
    return frame;
  }
  while (stack.length > 0 && (stack[stack.length - 1] as Frame).col > indent) stack.pop();
  // A key after a sequence written at its key's own indentation ("ports:\n- 1\nimage: x").
  const below = stack[stack.length - 2];
  if (
    !dash &&
    stack[stack.length - 1]?.kind === "seq" &&
    stack[stack.length - 1]?.col === indent &&
    below?.kind === "map" &&
    below.col === indent
  )
    stack.pop();
  const top = stack[stack.length - 1];
  if (top === undefined || top.col !== indent) return undefined;
  if (dash ? top.kind !== "seq" : top.kind !== "map") return undefined;
  // A new item of the cubes sequence itself is never part of this piece.
  if (stack.length === 1) return undefined;
  return top;
}

function noteIdentity(
  role: Role,
  key: string,
  value: string | undefined,
  found: { name?: string; id?: string; hostnames: string[] },
): boolean {
  if (role === "cube" && key === "domains") return value === undefined;
  const isIdentity = (role === "cube" && (key === "name" || key === "id")) || (role === "domain" && key === "hostname");
  if (!isIdentity) return true;
  if (value === undefined || !PLAIN_WORD.test(value) || NOT_STRINGS.test(value)) return false;
  if (key === "hostname") found.hostnames.push(value);
  else found[key as "name" | "id"] = value;
  return true;
}
