/** The positioned parse: a whole YAML document with a LineCounter, so that every problem is said at its FILE:LINE:COL. */
import type { Document, Node } from "yaml";
import type { $ZodIssue, $ZodType } from "zod/v4/core";
import { DesiredStateDocument, API_VERSION } from "../schema/desired.js";
import { quoted, type FileProblem, type LoadInput, type Position } from "./errors.js";
import { formatPath, knownKeysAt, longEnumMessage, MAX_VALUES_LISTED, unknownKeyHint, type IssuePath } from "./issue-text.js";
import { positionsByName, type ParsedText } from "./parse.js";
import { isUnknownLocalTag, isUnresolvedTag, TAG_OPTIONS, yamlLibrary as yaml } from "./yaml-split.js";
import {
  deepOffset,
  findFirstAlias,
  MAX_ALIAS_COUNT,
  NUL_MESSAGE,
  TOO_DEEP,
  unclosedQuoteStart,
  unreadTagMessage,
  yamlErrorMessage,
} from "./yaml-messages.js";

/** A YAML file parsed with positions; `schema` is the document's (the desired state's, or a policy file's: desired/policy.ts). */
export class ParsedFile implements ParsedText {
  readonly problems: FileProblem[] = [];
  readonly doc: Document.Parsed;
  private readonly lines = new (yaml().LineCounter)();

  constructor(
    private readonly file: string,
    source: string,
    private readonly schema: $ZodType = DesiredStateDocument,
  ) {
    this.doc = yaml().parseDocument(source, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true, ...TAG_OPTIONS });
    for (const error of this.doc.errors) {
      const message = yamlErrorMessage(error.code, error.message);
      if (message === TOO_DEEP) {
        // Once, where the nesting gets deep (the parser's own spot depends on the stack size).
        if (!this.problems.some((p) => p.message === TOO_DEEP)) this.addAt(deepOffset(source) ?? error.pos[0], TOO_DEEP);
        continue;
      }
      this.addAt(unclosedQuoteStart(this.doc, error) ?? error.pos[0], message);
    }
    for (const warning of this.doc.warnings) {
      // An unknown tag (!vault, !secret) would silently become a plain string.
      if (isUnknownLocalTag(warning))
        this.addAt(
          warning.pos[0],
          `${warning.message.split("\n")[0]}: cubeform does not resolve YAML tags; write the plain value (a secret as \${env:NAME})`,
        );
      else if (isUnresolvedTag(warning)) this.addAt(warning.pos[0], unreadTagMessage(warning.message));
    }
    const nul = source.indexOf("\0");
    if (nul >= 0) this.addAt(nul, NUL_MESSAGE);
    if (this.problems.length === 0) this.checkStructure();
  }

  /** What the parser accepts but cannot be a desired-state document, said before zod says "expected object". */
  private checkStructure(): void {
    const contents = this.doc.contents;
    if (this.schema !== DesiredStateDocument) {
      if (!yaml().isMap(contents)) this.addAt(contents?.range?.[0] ?? 0, "the file must be a mapping (apiVersion, kind, …)");
      return;
    }
    if (contents === null || (yaml().isScalar(contents) && (contents.value === null || contents.value === ""))) {
      this.addAt(
        0,
        `the file is empty: start it with "apiVersion: ${API_VERSION}" and a "cubes:" list (see examples/fleet.yaml, or write one from a live space with \`cubeform import\`)`,
      );
      return;
    }
    if (!yaml().isMap(contents)) {
      const found = yaml().isSeq(contents) ? "a list" : "a single value";
      this.addAt(contents.range?.[0], `the file must be a mapping with "apiVersion: ${API_VERSION}" and "cubes:", not ${found}`);
      return;
    }
    yaml().visit(this.doc, {
      Alias: (_key, node) => {
        if (node.resolve(this.doc) === undefined) {
          this.addAt(
            node.range?.[0],
            `unknown alias *${node.source}: no anchor &${node.source} is defined before it; define "&${node.source}" on the value first, or write the value out`,
          );
        }
      },
    });
  }

  /** The document as JavaScript (made once); problems (alias bombs, nesting too deep) become problems, not exceptions. */
  get value(): unknown {
    if (!this.made) this.made = { value: this.toJS() };
    return this.made.value;
  }

  private made: { value: unknown } | undefined;

  private toJS(): unknown {
    try {
      return this.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      const firstAlias = findFirstAlias(this.doc);
      if (e instanceof ReferenceError && /alias/i.test(e.message)) {
        this.addAt(
          firstAlias,
          `aliases expand to too many values (more than ${MAX_ALIAS_COUNT} per alias; this looks like an "alias bomb"): write the values out, or use fewer nested aliases`,
        );
      } else if (e instanceof RangeError) {
        this.addAt(0, TOO_DEEP);
      } else {
        this.addAt(0, `cannot read the YAML: ${(e as Error).message}`);
      }
      return undefined;
    }
  }

  addAt(offset: number | undefined, message: string, input?: LoadInput): void {
    const pos = offset === undefined ? { line: 0, col: 0 } : this.lines.linePos(offset);
    const problem: FileProblem = { file: this.file, line: pos.line, col: pos.col, message, ...(input === undefined ? {} : { input }) };
    const duplicate = this.problems.some((p) => p.line === problem.line && p.col === problem.col && p.message === problem.message);
    if (!duplicate) this.problems.push(problem);
  }

  positionOf(path: IssuePath): Position {
    return this.lines.linePos(this.nodeAt(path)?.range?.[0] ?? 0);
  }

  addAtPath(path: IssuePath, message: string, input?: LoadInput): void {
    this.addAt(this.nodeAt(path)?.range?.[0] ?? 0, message, input);
  }

  /** The node at `path`, or the nearest ancestor that exists. */
  nodeAt(path: IssuePath): Node | undefined {
    let node: unknown = this.doc.contents;
    for (const segment of path) {
      const next = childOf(node, segment);
      if (next === undefined) break;
      node = next;
    }
    return (node ?? undefined) as Node | undefined;
  }

  /** A problem the schema found in `value` (this file's document, its references resolved). */
  addZodIssue(issue: $ZodIssue, value: unknown): void {
    const where = formatPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(this.schema, issue.path);
      for (const key of issue.keys) this.addAtKey(issue.path, key, `${where}unknown key ${quoted(key)}${unknownKeyHint(key, known)}`);
      return;
    }
    const at = valueAt(value, issue.path);
    if (issue.code === "invalid_value" && issue.values.length > MAX_VALUES_LISTED)
      return this.addAtPath(issue.path, `${where}${longEnumMessage(at?.value, issue.values.map(String))}`);
    if (issue.path.length > 0 && at === undefined) return this.addAtPath(issue.path, `${where}required key is missing`);
    this.addAtPath(issue.path, `${where}${issue.message}`);
  }

  /**
   * Problems found past the parse, each at its path: normalize's say the path ("cubes[0].image: …"), the references' do not.
   * With skipReportedSpots, one at a spot already reported is the same one said twice.
   */
  addIssues(
    issues: readonly { path: IssuePath; message: string; input?: LoadInput }[],
    options: { sayPath: boolean; skipReportedSpots?: boolean },
  ): void {
    const reported = new Set(options.skipReportedSpots ? this.problems.map((p) => `${p.line}:${p.col}`) : []);
    for (const issue of issues) {
      const pos = this.positionOf(issue.path);
      if (!reported.has(`${pos.line}:${pos.col}`))
        this.addAtPath(issue.path, `${options.sayPath ? formatPath(issue.path) : ""}${issue.message}`, issue.input);
    }
  }

  private addAtKey(mapPath: IssuePath, key: string, message: string): void {
    const map = this.nodeAt(mapPath);
    const pair = yaml().isMap(map) ? map.items.find((item) => yaml().isScalar(item.key) && item.key.value === key) : undefined;
    const keyNode = pair?.key as Node | undefined;
    this.addAt(keyNode?.range?.[0] ?? map?.range?.[0], message);
  }

  cubePositions(document: DesiredStateDocument): Record<string, Position> {
    const starts = document.cubes.map((_, i) => this.nodeAt(["cubes", i])?.range?.[0]);
    return positionsByName(
      document,
      starts.map((offset) => (offset === undefined ? undefined : this.lines.linePos(offset))),
    );
  }
}

/** Where a path is, parsing the text with positions on first use only (only problems need it). */
export function locator(file: string, source: () => string): (path: IssuePath) => Position {
  let parsed: ParsedFile | undefined;
  return (path) => {
    parsed ??= new ParsedFile(file, source());
    return parsed.positionOf(path);
  };
}

function childOf(node: unknown, segment: string | number | symbol): unknown {
  if (yaml().isMap(node)) {
    const pair = node.items.find((item) => yaml().isScalar(item.key) && String(item.key.value) === String(segment));
    return pair === undefined ? undefined : (pair.value ?? pair.key);
  }
  if (yaml().isSeq(node) && typeof segment === "number") return node.items[segment];
  return undefined;
}

/** The value at `path` of a document's JavaScript, or undefined when there is none (a key that is written as null is there). */
function valueAt(root: unknown, path: IssuePath): { value: unknown } | undefined {
  let node = root;
  for (const segment of path) {
    if (typeof node !== "object" || node === null || typeof segment === "symbol" || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return { value: node };
}
