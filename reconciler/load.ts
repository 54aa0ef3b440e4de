/**
 * Loading the desired-state file: YAML → `${env:NAME}` resolution → zod → engine.normalize.
 * Every problem is reported at its file:line:col, all at once, and loading happens before
 * anything connects to the API.
 *
 * Two ways through: the light one (yaml-split.ts: cube by cube, no positions kept) for a
 * file that loads cleanly, and the positioned one (the whole document with a LineCounter)
 * when the light one finds any problem or cannot cut the file. Positions are only needed
 * for problems, and the positioned document costs several times the memory.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from "yaml";
import type { z } from "zod";
import type { DesiredState } from "../engine/types.js";
import { DesiredCubeInput, DesiredStateDocument } from "../schema/desired.js";
import { DesiredStateError, duplicateIssues, normalize, type IdentityFields } from "../engine/index.js";
import { CliError, LoadError, type FileProblem } from "./errors.js";
import type { Position } from "./render/types.js";
import { parseSplit } from "./yaml-split.js";

export type IssuePath = readonly (string | number | symbol)[];

export type { Position };

export interface LoadedFile {
  /** The path as the user gave it (used in messages and annotations). */
  file: string;
  absPath: string;
  desired: DesiredState;
  /** Environment variables that hold secrets (basic-auth passwords), by name. */
  secretEnvNames: string[];
  /** Where each declared cube starts in the file, by name. */
  cubePositions: Record<string, Position>;
}

export interface LoadOptions {
  file: string;
  cwd: string;
  env: Record<string, string | undefined>;
}

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const EXACT_ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

export async function loadDesiredState(options: LoadOptions): Promise<LoadedFile> {
  const absPath = isAbsolute(options.file) ? options.file : resolve(options.cwd, options.file);
  const source = readSource(options.file, absPath);
  return loadLight(source, options, absPath) ?? loadPositioned(source, options, absPath);
}

/** undefined when the file cannot be cut or has any problem: the positioned load reports it. */
function loadLight(source: string, options: LoadOptions, absPath: string): LoadedFile | undefined {
  const secretEnvNames = new Set<string>();
  // Each cube is resolved and validated as soon as it is parsed (zod: the same checks as the
  // whole document's), so only validated cubes accumulate.
  const split = parseSplit(source, (cube) => {
    if (!resolveEnvInValue(cube, options.env, secretEnvNames)) return undefined;
    const result = DesiredCubeInput.safeParse(cube);
    return result.success ? result.data : undefined;
  });
  if (split === undefined || !resolveEnvInValue(split.head, options.env, secretEnvNames)) return undefined;
  const result = DesiredStateDocument.safeParse({ ...split.head, cubes: [] });
  if (!result.success) return undefined;
  const document = { ...result.data, cubes: split.cubes };
  const desired = normalizeOrUndefined(document, dirname(absPath));
  if (desired === undefined) return undefined;
  const cubePositions = positionsByName(document, split.cubeStarts);
  return { file: options.file, absPath, desired, secretEnvNames: [...secretEnvNames], cubePositions };
}

function normalizeOrUndefined(document: DesiredStateDocument, baseDir: string): DesiredState | undefined {
  try {
    return normalize(document, { readTextFile: (path) => readReferencedFile(resolve(baseDir, path)), resolvePath: (path) => resolve(baseDir, path) });
  } catch (e) {
    if (e instanceof DesiredStateError) return undefined;
    throw e;
  }
}

/** The first cube of each name, like the positioned load. */
function positionsByName(document: DesiredStateDocument, starts: Position[]): Record<string, Position> {
  const positions: Record<string, Position> = {};
  document.cubes.forEach((cube, i) => {
    const start = starts[i];
    if (start !== undefined && positions[cube.name] === undefined) positions[cube.name] = start;
  });
  return positions;
}

/**
 * `${env:NAME}` resolution on the parsed value, with the rules of ParsedFile.resolveEnvReferences.
 * Adds the secret variables' names to `secretNames`; false when there is any problem.
 */
function resolveEnvInValue(root: unknown, env: Record<string, string | undefined>, secretNames: Set<string>): boolean {
  let ok = true;
  const resolveString = (text: string): string =>
    text.replace(ENV_REF, (ref: string, name: string) => {
      const value = env[name];
      if (value === undefined) ok = false;
      return value ?? ref;
    });
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => (typeof item === "string" ? (node[i] = resolveString(item)) : walk(item)));
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const map = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(map)) {
      if (typeof value !== "string") walk(value);
      else if (key !== "basicAuthPassword") map[key] = resolveString(value);
      else {
        const name = EXACT_ENV_REF.exec(value)?.[1];
        if (name === undefined || env[name] === undefined) ok = false;
        else secretNames.add(name);
      }
    }
  };
  walk(root);
  return ok;
}

function loadPositioned(source: string, options: LoadOptions, absPath: string): LoadedFile {
  const parsed = new ParsedFile(options.file, source);
  if (parsed.problems.length > 0) throw new LoadError(options.file, parsed.problems);

  const secretEnvNames = parsed.resolveEnvReferences(options.env);
  const raw: unknown = parsed.doc.toJS();
  const result = DesiredStateDocument.safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) parsed.addZodIssue(issue);
    // normalize() will not run on an invalid document: report its duplicates now, so every
    // problem shows at once.
    for (const issue of duplicateIssues(identityFieldsOf(raw))) parsed.addAtPath(issue.path, `${formatPath(issue.path)}${issue.message}`);
    throw new LoadError(options.file, parsed.problems);
  }
  const desired = parsed.normalize(result.data, dirname(absPath));
  if (parsed.problems.length > 0) throw new LoadError(options.file, parsed.problems);
  return { file: options.file, absPath, desired, secretEnvNames, cubePositions: parsed.cubePositions(result.data) };
}

/** The names, ids and hostnames of a document that may be invalid; what is not a string cannot collide. */
function identityFieldsOf(raw: unknown): IdentityFields[] {
  const cubes = (raw as { cubes?: unknown } | null)?.cubes;
  if (!Array.isArray(cubes)) return [];
  return cubes.map((cube: unknown, index) => {
    const c = (cube ?? {}) as { name?: unknown; id?: unknown; domains?: unknown };
    const domains = Array.isArray(c.domains) ? c.domains : [];
    return {
      name: typeof c.name === "string" ? c.name : `\0cube ${index}`,
      id: typeof c.id === "string" ? c.id : undefined,
      domains: domains.map((d: unknown, di) => {
        const hostname = (d as { hostname?: unknown } | null)?.hostname;
        return { hostname: typeof hostname === "string" ? hostname : `\0domain ${index}.${di}` };
      }),
    };
  });
}

function readSource(file: string, absPath: string): string {
  try {
    return readFileSync(absPath, "utf8");
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message;
    throw new CliError("file_unreadable", `cannot read ${file}: ${reason} (use -f/--file to name the desired-state file)`);
  }
}

class ParsedFile {
  readonly problems: FileProblem[] = [];
  readonly doc: Document.Parsed;
  private readonly lines = new LineCounter();

  constructor(
    private readonly file: string,
    source: string,
  ) {
    this.doc = parseDocument(source, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    for (const error of this.doc.errors) this.addAt(error.pos[0], error.message.split("\n")[0] ?? error.message);
  }

  addAt(offset: number | undefined, message: string): void {
    const pos = offset === undefined ? { line: 0, col: 0 } : this.lines.linePos(offset);
    const problem = { file: this.file, line: pos.line, col: pos.col, message };
    const duplicate = this.problems.some((p) => p.line === problem.line && p.col === problem.col && p.message === problem.message);
    if (!duplicate) this.problems.push(problem);
  }

  addAtPath(path: IssuePath, message: string): void {
    this.addAt(this.nodeAt(path)?.range?.[0] ?? 0, message);
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

  /**
   * Replaces `${env:NAME}` in every string value. basicAuthPassword is the exception: it must
   * be exactly one reference, stays unresolved (the engine makes it a SecretRef) and its
   * variable must be set. Returns the names of those secret variables.
   */
  resolveEnvReferences(env: Record<string, string | undefined>): string[] {
    const secretNames = new Set<string>();
    visit(this.doc, {
      Scalar: (key, node, ancestors) => {
        if (key === "key" || typeof node.value !== "string") return;
        const offset = node.range?.[0];
        if (isPasswordValue(ancestors)) {
          const name = EXACT_ENV_REF.exec(node.value)?.[1];
          if (name === undefined) this.addAt(offset, "basicAuthPassword must be an environment reference like ${env:BASIC_AUTH_PASSWORD}");
          else if (env[name] === undefined) this.addAt(offset, `environment variable ${name} is not set (basicAuthPassword refers to it)`);
          else secretNames.add(name);
          return;
        }
        node.value = node.value.replace(ENV_REF, (ref: string, name: string) => {
          const value = env[name];
          if (value === undefined) this.addAt(offset, `environment variable ${name} is not set (referenced as ${ref})`);
          return value ?? ref;
        });
      },
    });
    return [...secretNames];
  }

  addZodIssue(issue: z.core.$ZodIssue): void {
    const where = formatPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) this.addAtKey(issue.path, key, `${where}unknown key "${key}"`);
      return;
    }
    if (issue.path.length > 0 && !this.doc.hasIn(issue.path as unknown[])) {
      this.addAtPath(issue.path, `${where}required key is missing`);
      return;
    }
    this.addAtPath(issue.path, `${where}${issue.message}`);
  }

  private addAtKey(mapPath: IssuePath, key: string, message: string): void {
    const map = this.nodeAt(mapPath);
    const pair = isMap(map) ? map.items.find((item) => isScalar(item.key) && item.key.value === key) : undefined;
    const keyNode = pair?.key as Node | undefined;
    this.addAt(keyNode?.range?.[0] ?? map?.range?.[0], message);
  }

  normalize(document: DesiredStateDocument, baseDir: string): DesiredState {
    try {
      return normalize(document, { readTextFile: (path) => readReferencedFile(resolve(baseDir, path)), resolvePath: (path) => resolve(baseDir, path) });
    } catch (e) {
      if (!(e instanceof DesiredStateError)) throw e;
      const alreadyReported = new Set(this.problems.map((p) => `${p.line}:${p.col}`));
      for (const issue of e.issues) {
        const offset = this.nodeAt(issue.path)?.range?.[0] ?? 0;
        const pos = this.lines.linePos(offset);
        // The loader's own message about the same spot (e.g. a literal password) is the clearer one.
        if (!alreadyReported.has(`${pos.line}:${pos.col}`)) this.addAt(offset, `${formatPath(issue.path)}${issue.message}`);
      }
      return { prune: false, cubes: [] };
    }
  }

  cubePositions(document: DesiredStateDocument): Record<string, Position> {
    const positions: Record<string, Position> = {};
    document.cubes.forEach((cube, i) => {
      const offset = this.nodeAt(["cubes", i])?.range?.[0];
      if (offset !== undefined && positions[cube.name] === undefined) positions[cube.name] = this.lines.linePos(offset);
    });
    return positions;
  }
}

function childOf(node: unknown, segment: string | number | symbol): unknown {
  if (isMap(node)) {
    const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
    return pair === undefined ? undefined : (pair.value ?? pair.key);
  }
  if (isSeq(node) && typeof segment === "number") return node.items[segment];
  return undefined;
}

function isPasswordValue(ancestors: readonly unknown[]): boolean {
  const parent = ancestors[ancestors.length - 1];
  return isPair(parent) && isScalar(parent.key) && parent.key.value === "basicAuthPassword";
}

/** The engine puts this message after "cannot read <path>: ". */
function readReferencedFile(absPath: string): string {
  try {
    return readFileSync(absPath, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : (e as Error).message;
    throw new Error(`${reason} (looked for ${absPath}; paths are relative to the YAML file)`);
  }
}

/** "cubes[0].resources.vcpu: " (empty for the document root). */
export function formatPath(path: IssuePath): string {
  let text = "";
  for (const segment of path) {
    text += typeof segment === "number" ? `[${segment}]` : `${text === "" ? "" : "."}${String(segment)}`;
  }
  return text === "" ? "" : `${text}: `;
}
