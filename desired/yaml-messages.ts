/** The yaml parser's findings made into what a user can act on, and where they are. */
import type { Document } from "yaml";
import { visible } from "./errors.js";
import { yamlLibrary as yaml } from "./yaml-split.js";

export const NUL_MESSAGE =
  'a NUL byte: YAML allows none anywhere in a file, comments included (a NUL inside a value is written "\\0" in a double-quoted string); is this a binary or UTF-16 file?';

/** "Unresolved tag: tag:yaml.org,2002:omap" → what to write instead. */
export function unreadTagMessage(message: string): string {
  const tag = (message.split("\n")[0] ?? "").replace(/^Unresolved tag: /, "").replace(/^tag:yaml\.org,2002:/, "!!");
  return `the tag ${visible(tag)} is not one cubeform reads (YAML 1.2's core types only: !!str, !!int, !!float, !!bool, !!null, !!map, !!seq); write a plain mapping, list or value`;
}

/** yaml's own default: an alias may expand to at most this many nodes. */
export const MAX_ALIAS_COUNT = 100;

export const TOO_DEEP =
  "the YAML is nested too deeply to read (a desired-state file needs only a few levels): check the indentation, or for a flow value the [ and { brackets";

/** The parser's message made into what a user can act on. */
export function yamlErrorMessage(code: string, message: string): string {
  const first = message.split("\n")[0] ?? message;
  if (code === "MULTIPLE_DOCS") {
    return 'the file holds more than one YAML document (a second "---" starts here): put every cube in one document\'s cubes: list, or split them into files of one document each (a run reads several files)';
  }
  if (code === "RESOURCE_EXHAUSTION" || /call stack/i.test(first)) return TOO_DEEP;
  return first;
}

/** Where the quote opens of a "Missing closing quote" error (the parser reports the end of the file, where it gave up). */
export function unclosedQuoteStart(
  doc: Document.Parsed,
  error: { code: string; message: string; pos: [number, number] },
): number | undefined {
  if (error.code !== "MISSING_CHAR" || !/closing ["']quote/.test(error.message)) return undefined;
  let start: number | undefined;
  yaml().visit(doc, {
    Scalar(_key, node) {
      const [from, , to] = node.range ?? [];
      if (
        (node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE") &&
        from !== undefined &&
        to !== undefined &&
        from <= error.pos[0] &&
        error.pos[0] <= to
      )
        start = from;
    },
  });
  return start;
}

/** Where block indentation or flow brackets first nest deeper than any desired-state file needs. */
export function deepOffset(source: string): number | undefined {
  const MAX_INDENT = 200;
  const MAX_FLOW = 100;
  let offset = 0;
  let flow = 0;
  for (const line of source.split("\n")) {
    const indent = /^[ \t-]*/.exec(line)?.[0].length ?? 0;
    if (indent >= MAX_INDENT) return offset + MAX_INDENT;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (c === "#" && (i === 0 || line[i - 1] === " ")) break;
      if (c === "[" || c === "{") flow++;
      else if ((c === "]" || c === "}") && flow > 0) flow--;
      if (flow >= MAX_FLOW) return offset + i;
    }
    offset += line.length + 1;
  }
  return undefined;
}

export function findFirstAlias(doc: Document.Parsed): number | undefined {
  let offset: number | undefined;
  yaml().visit(doc, {
    Alias: (_key, node) => {
      offset = node.range?.[0];
      return yaml().visit.BREAK;
    },
  });
  return offset;
}
