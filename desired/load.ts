/**
 * Loading the desired-state file: YAML → `${env:NAME}` resolution → zod → engine.normalize; every problem is reported at its
 * file:line:col, all at once, before anything connects to the API. The light way (yaml-split.ts: cube by cube, no positions)
 * loads a clean file without the yaml library; the positioned one (the whole document with a LineCounter, several times the
 * memory) runs when the light one finds any problem or cannot cut the file.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import type { Document, Node } from "yaml";
import { $ZodArray, $ZodDefault, $ZodNullable, $ZodObject, $ZodOptional, type $ZodIssue, type $ZodType } from "zod/v4/core";
import type { DeclaredCube, DesiredState } from "../engine/types.js";
import { API_VERSION, DesiredCubeInput, DesiredStateDocument } from "../schema/desired.js";
import { DesiredStateError } from "../engine/errors.js";
import { duplicateIssues, normalize, type IdentityFields, type NormalizeOptions } from "../engine/normalize.js";
import { memberName } from "../engine/replicas.js";
import { FileReadError, readRegularFile, readRegularText, tryOr } from "../system/files.js";
import { confinedPath, confineSource, secretPathUnder } from "./confine.js";
import { LoadError, quoted, SourceError, UnreadableFileError, visible, type FileProblem, type Position } from "./errors.js";
import { ANY_REFERENCED_FILE, FLEET_FILE, REFERENCED_FILES } from "./limits.js";

import { didYouMean } from "./suggest.js";
import { isUnknownLocalTag, isUnresolvedTag, parseSplit, TAG_OPTIONS, yamlLibrary as yaml } from "./yaml-split.js";
import { type DiskLoadCache, type KeptLoad } from "./load-cache.js";
import { passwordRef, resolveEnvRefs, type Env } from "./env.js";

export type IssuePath = readonly (string | number | symbol)[];

export type { Position };

export interface LoadedFile extends KeptLoad {
  /** The path as the user gave it (used in messages and annotations). */
  file: string;
  absPath: string;
  /** Where a path (["cubes", 2, "image"]), or its nearest written ancestor, is; parses the file with positions on first use (only problems need it). */
  locate(path: IssuePath): Position;
}

export interface LoadOptions {
  file: string;
  /** The file's text when it does not come from disk (`-f -`); paths in it are relative to cwd. */
  source?: string;
  cwd: string;
  env: Record<string, string | undefined>;
  /**
   * A plan's --target names: the cubes they leave out are read for their identity only (duplicates are still found) and kept in
   * desired.untargeted; any problem sends the whole file to the positioned load, which reports every problem as without targets.
   */
  targets?: readonly string[];
  /** Kept between the rounds of a watch: an unchanged file is not read again (LoadCache). */
  cache?: LoadCache;
  /** Kept between runs: a large unchanged file is not parsed again (load-cache.ts). */
  diskCache?: DiskLoadCache;
  /** A checkout is hostile input: the file, and every file it names, must resolve inside this real path (confine.ts). */
  root?: string;
  /** With root: where webhooks' secretFiles are written (never into the checkout). */
  secretsDir?: string;
}

/** The files a load read besides the YAML itself (userData, sshPublicKey files), with their text. */
type ReferencedReads = Map<string, string>;

/**
 * What a watch keeps between rounds: a loaded file, answered again while its text and those of the files it refers to are
 * unchanged (compared in full, not by time stamp) and the environment and targets are the same. A file with problems is never kept.
 */
export class LoadCache {
  private readonly entries = new Map<string, { source: string; env: LoadOptions["env"]; targets: string; reads: ReferencedReads; loaded: LoadedFile }>();
  /** The last merge of several files (sources.ts), answered again when each file was. */
  merged?: { parts: readonly LoadedFile[]; result: unknown };

  lookup(absPath: string, source: string, options: LoadOptions): LoadedFile | undefined {
    const entry = this.entries.get(absPath);
    if (entry === undefined || entry.source !== source || entry.env !== options.env || entry.targets !== targetsKey(options)) return undefined;
    return [...entry.reads].every(([path, text]) => tryOr(() => readRegularText(path, ANY_REFERENCED_FILE), undefined) === text) ? entry.loaded : undefined;
  }

  store(absPath: string, source: string, options: LoadOptions, reads: ReferencedReads, loaded: LoadedFile): void {
    this.entries.set(absPath, { source, env: options.env, targets: targetsKey(options), reads, loaded });
  }
}

const targetsKey = (options: LoadOptions): string => (options.targets ?? []).join("\0");

export async function loadDesiredState(options: LoadOptions): Promise<LoadedFile> {
  return loadDesiredStateSync(options);
}

/** The same load, synchronously: the Pulumi Fleet component loads the file in its constructor. */
export function loadDesiredStateSync(options: LoadOptions): LoadedFile {
  const absPath = options.source !== undefined ? resolve(options.cwd, "stdin.yaml") : isAbsolute(options.file) ? options.file : resolve(options.cwd, options.file);
  if (options.root !== undefined) confineSource(options.root, absPath, options.file);
  const read = options.source ?? readSource(absPath, options.file);
  // A load the disk cache answers needs the file's bytes (their digest), not its text: 3.5 MB decoded is ~3 ms.
  let decoded = typeof read === "string" ? read : undefined;
  const text = (): string => (decoded ??= (read as Buffer).toString("utf8"));
  const cached = options.cache?.lookup(absPath, text(), options);
  if (cached !== undefined) return cached;
  const key = { file: options.file, absPath, ...(options.targets ? { targets: options.targets } : {}) };
  const kept = options.diskCache?.lookup(key, read, options.env);
  if (kept !== undefined) return { file: options.file, absPath, ...kept, locate: locator(options.file, text) };
  const source = text();
  const reads: ReferencedReads = new Map();
  try {
    const light = undefinedOn(RangeError, () => loadLight(source, options, absPath, reads));
    if (light !== undefined) options.diskCache?.store(key, read, { env: options.env, reads }, keptPart(light));
    const loaded = light ?? loadPositioned(source, options, absPath, reads);
    options.cache?.store(absPath, source, options, reads, loaded);
    return loaded;
  } catch (e) {
    // A structure deep enough to exhaust the stack somewhere past the parser is still the file's problem.
    if (e instanceof RangeError) throw new LoadError(options.file, [{ file: options.file, line: 1, col: 1, message: TOO_DEEP }]);
    throw e;
  }
}

function readSource(absPath: string, file: string): Buffer {
  try {
    return readRegularFile(absPath, FLEET_FILE);
  } catch (error) {
    if (error instanceof FileReadError) throw new UnreadableFileError(file, error.reason, error.refusal === "missing" ? "use -f/--file to name the desired-state file" : undefined);
    throw error;
  }
}

const keptPart = ({ desired, secretEnvNames, envNames, cubePositions, cubeNames }: LoadedFile): KeptLoad => ({ desired, secretEnvNames, envNames, cubePositions, cubeNames });

/** What `run` returns, or undefined when it throws an `Expected` error (any other is thrown on). */
function undefinedOn<T>(Expected: new (...args: never[]) => Error, run: () => T): T | undefined {
  try {
    return run();
  } catch (e) {
    if (e instanceof Expected) return undefined;
    throw e;
  }
}

/**
 * zod compiles a fast parser for an object schema on its first parse (new Function: some ms in every run). For a file's first
 * cubes, and its head, parsing without it is quicker; past them the compiled one pays. Same checks either way.
 */
const UNCOMPILED_PARSES = 64;
const UNCOMPILED = { jitless: true } as const;

/** undefined when the file cannot be cut or has any problem: the positioned load reports it. */
function loadLight(source: string, options: LoadOptions, absPath: string, reads: ReferencedReads): LoadedFile | undefined {
  const secretEnvNames = new Set<string>();
  const envNames = new Set<string>();
  const targets = options.targets !== undefined && options.targets.length > 0 ? new Set(options.targets) : undefined;
  let parses = 0;
  // Each cube is resolved and validated as soon as it is parsed: only validated cubes accumulate.
  const split = parseSplit<LightCube>(source, {
    // With targets, a cube no target names is read for its identity alone, from its text when it is plain enough.
    ...(targets === undefined ? {} : { identify: ({ name, id, hostnames }) => (targets.has(name) ? undefined : { identity: { name, id, domains: hostnames.map((hostname) => ({ hostname })) } }) }),
    convert: (cube) => {
      const stub = targets === undefined ? undefined : untargetedStub(cube, targets);
      if (stub !== undefined) return stub;
      if (!resolveEnvInValue(cube, options.env, secretEnvNames, envNames)) return undefined;
      const result = DesiredCubeInput.safeParse(cube, parses++ < UNCOMPILED_PARSES ? UNCOMPILED : undefined);
      if (!result.success) return undefined;
      const { name, id, domains } = result.data;
      return { spec: result.data, identity: { name, id, domains: (domains ?? []).map((d) => ({ hostname: d.hostname })) } };
    },
  });
  if (split === undefined || !resolveEnvInValue(split.head, options.env, secretEnvNames, envNames)) return undefined;
  const result = DesiredStateDocument.safeParse({ ...split.head, cubes: [] }, UNCOMPILED);
  if (!result.success) return undefined;
  // normalize() finds the duplicates among the validated cubes; with targets, the stubs count too.
  if (targets !== undefined && duplicateIssues(split.cubes.map((c) => c.identity)).length > 0) return undefined;
  const specs: DesiredCubeInput[] = [];
  const specStarts: (Position | undefined)[] = [];
  const untargeted: DeclaredCube[] = [];
  split.cubes.forEach((cube, i) => {
    if (cube.spec === undefined) untargeted.push(cube.identity.id === undefined ? { name: cube.identity.name } : { name: cube.identity.name, id: cube.identity.id });
    else {
      specs.push(cube.spec);
      specStarts.push(split.cubeStarts[i]);
    }
  });
  const document = { ...result.data, cubes: specs };
  const desired = undefinedOn(DesiredStateError, () => normalize(document, fileAccess(dirname(absPath), reads, options)));
  if (desired === undefined) return undefined;
  if (targets !== undefined) desired.untargeted = untargeted;
  const cubePositions = positionsByName(document, specStarts);
  const cubeNames = split.cubes.map((c) => c.identity.name);
  return { file: options.file, absPath, desired, secretEnvNames: [...secretEnvNames], envNames: [...envNames], cubePositions, cubeNames, locate: locator(options.file, () => source) };
}

/** A cube of the light load: validated (spec), or only identified when a --target leaves it out. */
interface LightCube {
  spec?: DesiredCubeInput;
  identity: IdentityFields;
}

/**
 * The identity of a cube no target names, the rest unvalidated; undefined when the cube must be validated in full: it is
 * targeted, or its identity is not plain strings (what is wrong there, or an ${env:…} in it, is for the full checks).
 */
function untargetedStub(cube: unknown, targets: ReadonlySet<string>): LightCube | undefined {
  if (typeof cube !== "object" || cube === null || Array.isArray(cube)) return undefined;
  const { name, id, domains } = cube as { name?: unknown; id?: unknown; domains?: unknown };
  if (!isPlainString(name) || targets.has(name) || (id !== undefined && !isPlainString(id))) return undefined;
  if (domains !== undefined && domains !== null && !Array.isArray(domains)) return undefined;
  const hostnames: { hostname: string }[] = [];
  for (const domain of (domains ?? []) as unknown[]) {
    const hostname = (domain as { hostname?: unknown } | null)?.hostname;
    if (!isPlainString(hostname)) return undefined;
    hostnames.push({ hostname });
  }
  return { identity: { name, id, domains: hostnames } };
}

function isPlainString(value: unknown): value is string {
  return typeof value === "string" && value !== "" && !value.includes("${");
}

/** How the files a document names are read and written: relative to the YAML file, and inside the checkout when there is one. */
function fileAccess(baseDir: string, reads: ReferencedReads, options: Pick<LoadOptions, "root" | "secretsDir">): NormalizeOptions {
  const { root, secretsDir } = options;
  if (root === undefined) return { readTextFile: (path, field) => readReferencedFile(resolve(baseDir, path), field, reads), resolvePath: (path) => resolve(baseDir, path) };
  return { readTextFile: (path, field) => readReferencedFile(confinedPath(root, baseDir, path), field, reads), resolvePath: (path) => secretPathUnder(secretsDir, path) };
}

/** Where the first cube of each name starts. */
function positionsByName(document: DesiredStateDocument, starts: (Position | undefined)[]): Record<string, Position> {
  const positions: Record<string, Position> = {};
  document.cubes.forEach((cube, i) => {
    const start = starts[i];
    if (start !== undefined && positions[cube.name] === undefined) positions[cube.name] = start;
    // A group's members are where their entry is.
    for (let i = 1; start !== undefined && i <= (cube.replicas ?? 0); i++) positions[memberName(cube.name, i)] ??= start;
  });
  return positions;
}

/**
 * `${env:NAME}` resolution on the parsed value, by ParsedFile.resolveEnvReferences's rules: the variables resolved go to
 * `used`, the passwords' to `secretNames`; false when there is any problem.
 */
function resolveEnvInValue(root: unknown, env: Env, secretNames: Set<string>, used: Set<string>): boolean {
  let ok = true;
  const unset = (): void => void (ok = false);
  const note = (name: string): void => void used.add(name);
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => (typeof item === "string" ? (node[i] = resolveEnvRefs(item, env, unset, note)) : walk(item)));
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const map = node as Record<string, unknown>;
    for (const key of Object.keys(map)) {
      const value = map[key];
      if (typeof value !== "string") walk(value);
      else if (key !== "basicAuthPassword") map[key] = resolveEnvRefs(value, env, unset, note);
      else {
        const ref = passwordRef(value, env);
        if ("name" in ref) secretNames.add(ref.name);
        else ok = false;
      }
    }
  };
  walk(root);
  return ok;
}

function loadPositioned(source: string, options: LoadOptions, absPath: string, reads: ReferencedReads): LoadedFile {
  const parsed = new ParsedFile(options.file, source);
  if (parsed.problems.length > 0) throw new LoadError(options.file, parsed.problems);

  const envNames = new Set<string>();
  const secretEnvNames = parsed.resolveEnvReferences(options.env, envNames);
  const raw = parsed.toJS();
  if (parsed.problems.length > 0) throw new LoadError(options.file, parsed.problems);
  const result = DesiredStateDocument.safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) parsed.addZodIssue(issue);
    // normalize() will not run on an invalid document: report its duplicates now, so every problem shows at once.
    for (const issue of duplicateIssues(identityFieldsOf(raw))) parsed.addAtPath(issue.path, `${formatPath(issue.path)}${issue.message}`);
    throw new LoadError(options.file, parsed.problems);
  }
  const desired = parsed.normalize(result.data, fileAccess(dirname(absPath), reads, options));
  if (parsed.problems.length > 0) throw new LoadError(options.file, parsed.problems);
  const cubeNames = result.data.cubes.map((cube) => cube.name);
  return { file: options.file, absPath, desired, secretEnvNames, envNames: [...envNames], cubePositions: parsed.cubePositions(result.data), cubeNames, locate: (path) => parsed.positionOf(path) };
}

/** The names, ids and hostnames of a document that may be invalid; what is not a string cannot collide. */
function identityFieldsOf(raw: unknown): IdentityFields[] {
  const cubes = (raw as { cubes?: unknown } | null)?.cubes;
  if (!Array.isArray(cubes)) return [];
  return cubes.map((cube: unknown, index) => {
    const c = (cube ?? {}) as { name?: unknown; id?: unknown; domains?: unknown; replicas?: unknown };
    const domains = Array.isArray(c.domains) ? c.domains : [];
    return {
      name: typeof c.name === "string" ? c.name : `\0cube ${index}`,
      id: typeof c.id === "string" ? c.id : undefined,
      // A group's hostnames are its members': "web-{i}.example.com" in two groups is no duplicate unless the members' are.
      replicas: typeof c.replicas === "number" ? c.replicas : undefined,
      domains: domains.map((d: unknown, di) => {
        const hostname = (d as { hostname?: unknown } | null)?.hostname;
        return { hostname: typeof hostname === "string" ? hostname : `\0domain ${index}.${di}` };
      }),
    };
  });
}

/** A YAML file parsed with positions; `schema` is the document's (the desired state's, or a policy file's: desired/policy.ts). */
export class ParsedFile {
  readonly problems: FileProblem[] = [];
  readonly doc: Document.Parsed;
  private readonly lines = new (yaml().LineCounter)();

  constructor(private readonly file: string, source: string, private readonly schema: $ZodType = DesiredStateDocument) {
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
      if (isUnknownLocalTag(warning)) this.addAt(warning.pos[0], `${warning.message.split("\n")[0]}: cubeform does not resolve YAML tags; write the plain value (a secret as \${env:NAME})`);
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
      this.addAt(0, `the file is empty: start it with "apiVersion: ${API_VERSION}" and a "cubes:" list (see examples/fleet.yaml, or write one from a live space with \`cubeform import\`)`);
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
          this.addAt(node.range?.[0], `unknown alias *${node.source}: no anchor &${node.source} is defined before it; define "&${node.source}" on the value first, or write the value out`);
        }
      },
    });
  }

  /** The document as JavaScript; problems (alias bombs, nesting too deep) become problems, not exceptions. */
  toJS(): unknown {
    try {
      return this.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      const firstAlias = findFirstAlias(this.doc);
      if (e instanceof ReferenceError && /alias/i.test(e.message)) {
        this.addAt(firstAlias, `aliases expand to too many values (more than ${MAX_ALIAS_COUNT} per alias; this looks like an "alias bomb"): write the values out, or use fewer nested aliases`);
      } else if (e instanceof RangeError) {
        this.addAt(0, TOO_DEEP);
      } else {
        this.addAt(0, `cannot read the YAML: ${(e as Error).message}`);
      }
      return undefined;
    }
  }

  addAt(offset: number | undefined, message: string): void {
    const pos = offset === undefined ? { line: 0, col: 0 } : this.lines.linePos(offset);
    const problem = { file: this.file, line: pos.line, col: pos.col, message };
    const duplicate = this.problems.some((p) => p.line === problem.line && p.col === problem.col && p.message === problem.message);
    if (!duplicate) this.problems.push(problem);
  }

  positionOf(path: IssuePath): Position {
    return this.lines.linePos(this.nodeAt(path)?.range?.[0] ?? 0);
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
   * Replaces `${env:NAME}` in every string value but basicAuthPassword, which must be exactly one reference to a set variable
   * and stays unresolved (the engine makes it a SecretRef). Returns the names of those secret variables.
   */
  resolveEnvReferences(env: Env, used: Set<string>): string[] {
    const secretNames = new Set<string>();
    yaml().visit(this.doc, {
      Scalar: (key, node, ancestors) => {
        if (key === "key" || typeof node.value !== "string") return;
        const offset = node.range?.[0];
        if (isPasswordValue(ancestors)) {
          const ref = passwordRef(node.value, env);
          if ("name" in ref) secretNames.add(ref.name);
          else this.addAt(offset, ref.problem);
          return;
        }
        node.value = resolveEnvRefs(node.value, env, (name, ref) => this.addAt(offset, `environment variable ${name} is not set (referenced as ${ref})`), (name) => used.add(name));
      },
    });
    return [...secretNames];
  }

  addZodIssue(issue: $ZodIssue): void {
    const where = formatPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(this.schema, issue.path);
      for (const key of issue.keys) this.addAtKey(issue.path, key, `${where}unknown key ${quoted(key)}${unknownKeyHint(key, known)}`);
      return;
    }
    if (issue.code === "invalid_value" && issue.values.length > MAX_VALUES_LISTED) {
      this.addAtPath(issue.path, `${where}${longEnumMessage(this.doc.getIn(issue.path as unknown[]), issue.values.map(String))}`);
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
    const pair = yaml().isMap(map) ? map.items.find((item) => yaml().isScalar(item.key) && item.key.value === key) : undefined;
    const keyNode = pair?.key as Node | undefined;
    this.addAt(keyNode?.range?.[0] ?? map?.range?.[0], message);
  }

  normalize(document: DesiredStateDocument, access: NormalizeOptions): DesiredState {
    try {
      return normalize(document, access);
    } catch (e) {
      if (!(e instanceof DesiredStateError)) throw e;
      const alreadyReported = new Set(this.problems.map((p) => `${p.line}:${p.col}`));
      for (const issue of e.issues) {
        const pos = this.positionOf(issue.path);
        // The loader's own message about the same spot (e.g. a literal password) is the clearer one.
        if (!alreadyReported.has(`${pos.line}:${pos.col}`)) this.addAtPath(issue.path, `${formatPath(issue.path)}${issue.message}`);
      }
      return { prune: false, cubes: [] };
    }
  }

  cubePositions(document: DesiredStateDocument): Record<string, Position> {
    const starts = document.cubes.map((_, i) => this.nodeAt(["cubes", i])?.range?.[0]);
    return positionsByName(document, starts.map((offset) => (offset === undefined ? undefined : this.lines.linePos(offset))));
  }
}

function locator(file: string, source: () => string): (path: IssuePath) => Position {
  let parsed: ParsedFile | undefined;
  return (path) => {
    parsed ??= new ParsedFile(file, source());
    return parsed.positionOf(path);
  };
}

/** The keys the schema allows in the object at `path` (array indexes and wrappers stepped through). */
export function knownKeysAt(schema: $ZodType, path: IssuePath): string[] {
  let node: $ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (node instanceof $ZodArray) node = unwrap(node._zod.def.element);
    else if (node instanceof $ZodObject && typeof segment === "string") node = unwrap(node._zod.def.shape[segment]);
    else node = undefined;
    if (node instanceof $ZodArray && typeof segment === "number") continue;
  }
  return node instanceof $ZodObject ? Object.keys(node._zod.def.shape) : [];
}

function unwrap(schema: $ZodType | undefined): $ZodType | undefined {
  let node = schema;
  while (node instanceof $ZodOptional || node instanceof $ZodNullable || node instanceof $ZodDefault) node = node._zod.def.innerType;
  return node;
}

/** " (did you mean …?)", else the keys allowed there when they are few. */
function unknownKeyHint(key: string, known: string[]): string {
  const suggestion = didYouMean(key, known);
  if (suggestion !== "" || known.length === 0) return suggestion;
  return known.length <= 8 ? `; allowed here: ${known.join(", ")}` : "";
}

/** An enum longer than this (webhook events: 45) is not listed in a message: the closest value is named. */
const MAX_VALUES_LISTED = 8;

function longEnumMessage(got: unknown, allowed: string[]): string {
  const shown = typeof got === "string" ? `"${got}"` : "this value";
  const hint = typeof got === "string" ? didYouMean(got, allowed) : "";
  return `${shown} is not one of the ${allowed.length} allowed values${hint || ` (${allowed.slice(0, 3).join(", ")}, …)`}`;
}

const NUL_MESSAGE = 'a NUL byte: YAML allows none anywhere in a file, comments included (a NUL inside a value is written "\\0" in a double-quoted string); is this a binary or UTF-16 file?';

/** "Unresolved tag: tag:yaml.org,2002:omap" → what to write instead. */
function unreadTagMessage(message: string): string {
  const tag = (message.split("\n")[0] ?? "").replace(/^Unresolved tag: /, "").replace(/^tag:yaml\.org,2002:/, "!!");
  return `the tag ${visible(tag)} is not one cubeform reads (YAML 1.2's core types only: !!str, !!int, !!float, !!bool, !!null, !!map, !!seq); write a plain mapping, list or value`;
}

/** yaml's own default: an alias may expand to at most this many nodes. */
const MAX_ALIAS_COUNT = 100;

const TOO_DEEP = "the YAML is nested too deeply to read (a desired-state file needs only a few levels): check the indentation, or for a flow value the [ and { brackets";

/** The parser's message made into what a user can act on. */
function yamlErrorMessage(code: string, message: string): string {
  const first = message.split("\n")[0] ?? message;
  if (code === "MULTIPLE_DOCS") {
    return "the file holds more than one YAML document (a second \"---\" starts here): put every cube in one document's cubes: list, or split them into files and pass each with -f";
  }
  if (code === "RESOURCE_EXHAUSTION" || /call stack/i.test(first)) return TOO_DEEP;
  return first;
}

/** Where the quote opens of a "Missing closing quote" error (the parser reports the end of the file, where it gave up). */
function unclosedQuoteStart(doc: Document.Parsed, error: { code: string; message: string; pos: [number, number] }): number | undefined {
  if (error.code !== "MISSING_CHAR" || !/closing ["']quote/.test(error.message)) return undefined;
  let start: number | undefined;
  yaml().visit(doc, {
    Scalar(_key, node) {
      const [from, , to] = node.range ?? [];
      if ((node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE") && from !== undefined && to !== undefined && from <= error.pos[0] && error.pos[0] <= to) start = from;
    },
  });
  return start;
}

/** Where block indentation or flow brackets first nest deeper than any desired-state file needs. */
function deepOffset(source: string): number | undefined {
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

function findFirstAlias(doc: Document.Parsed): number | undefined {
  let offset: number | undefined;
  yaml().visit(doc, {
    Alias: (_key, node) => {
      offset = node.range?.[0];
      return yaml().visit.BREAK;
    },
  });
  return offset;
}

function childOf(node: unknown, segment: string | number | symbol): unknown {
  if (yaml().isMap(node)) {
    const pair = node.items.find((item) => yaml().isScalar(item.key) && String(item.key.value) === String(segment));
    return pair === undefined ? undefined : (pair.value ?? pair.key);
  }
  if (yaml().isSeq(node) && typeof segment === "number") return node.items[segment];
  return undefined;
}

function isPasswordValue(ancestors: readonly unknown[]): boolean {
  const parent = ancestors[ancestors.length - 1];
  return yaml().isPair(parent) && yaml().isScalar(parent.key) && parent.key.value === "basicAuthPassword";
}

/** The engine puts this message after "cannot read <path>: ", at the key that names the file. */
function readReferencedFile(absPath: string, field: keyof typeof REFERENCED_FILES, reads: ReferencedReads): string {
  try {
    const text = readRegularText(absPath, REFERENCED_FILES[field]);
    reads.set(absPath, text);
    return text;
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    const notThere = e.refusal === "missing" || e.refusal === "dangling_symlink";
    throw new Error(notThere ? `${e.reason} (looked for ${absPath}; paths are relative to the YAML file)` : e.reason);
  }
}

/** "cubes[0].resources.vcpu: " (empty for the document root). */
export function formatPath(path: IssuePath): string {
  let text = "";
  for (const segment of path) {
    text += typeof segment === "number" ? `[${segment}]` : `${text === "" ? "" : "."}${visible(String(segment))}`;
  }
  return text === "" ? "" : `${text}: `;
}
