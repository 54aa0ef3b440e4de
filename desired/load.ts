/**
 * Loading one desired-state file: parse (parse.ts: the light parser when it can, else the positioned one) → `${env:NAME}`
 * resolution (env.ts) → zod → normalize; every problem is reported at its file:line:col, all at once, before anything
 * connects to the API. A watch's memory (memory-cache.ts) and the disk (load-cache.ts) answer an unchanged file again.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { DesiredStateDocument } from "../schema/desired.js";
import { FileReadError, readRegularFile } from "../system/files.js";
import { confineSource } from "./confine.js";
import { envFound, keptLoad, resolveEnvIn } from "./env.js";
import { DesiredStateError, LoadError, UnreadableFileError } from "./errors.js";
import { fileAccess, type ReferencedReads } from "./file-access.js";
import { loadLight, undefinedOn } from "./light-load.js";
import type { KeptLoad } from "./load-cache.js";
import type { LoadedFile, LoadOptions } from "./load-types.js";
import { FLEET_FILE } from "./limits.js";
import { duplicateIssues, normalize, type IdentityFields } from "./normalize.js";
import { locator, ParsedFile } from "./parsed-file.js";
import { TOO_DEEP } from "./yaml-messages.js";

export type { IssuePath, LoadedFile, LoadOptions, Position } from "./load-types.js";

/** Synchronous (the Pulumi Fleet component loads in its constructor). */
export function loadDesiredStateSync(options: LoadOptions): LoadedFile {
  const absPath =
    options.source !== undefined
      ? resolve(options.cwd, "stdin.yaml")
      : isAbsolute(options.file)
        ? options.file
        : resolve(options.cwd, options.file);
  if (options.root !== undefined) confineSource(options.root, absPath, options.file);
  // Stamped before it is read (load-cache.ts): a load the disk cache answers by the stamp reads nothing.
  const stamp = options.source === undefined ? options.diskCache?.stamp(absPath) : undefined;
  let bytes: string | Buffer | undefined = options.source;
  const read = (): string | Buffer => (bytes ??= readSource(absPath, options.file));
  // A load the disk cache answers needs the file's bytes (their digest) at most, not its text: 3.5 MB decoded is ~3 ms.
  let decoded: string | undefined;
  const text = (): string => (decoded ??= read().toString());
  const cached = options.cache?.lookup(absPath, text(), options);
  if (cached !== undefined) return cached;
  const key = { file: options.file, absPath, ...(options.targets ? { targets: options.targets } : {}) };
  const kept = options.diskCache?.lookup(key, { text: read, ...(stamp ? { stamp } : {}) }, options.env, options.root);
  if (kept !== undefined) return { file: options.file, absPath, ...kept, locate: locator(options.file, text) };
  const source = text();
  const reads: ReferencedReads = new Map();
  try {
    const light = undefinedOn(RangeError, () => loadLight(source, options, absPath, reads));
    if (light !== undefined)
      options.diskCache?.store(key, read(), { env: options.env, reads, ...(stamp ? { stamp } : {}) }, keptPart(light));
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
    if (error instanceof FileReadError) throw new UnreadableFileError(file, error.reason, error.refusal === "missing");
    throw error;
  }
}

const keptPart = ({ desired, secretEnvNames, envNames, cubePositions, cubeNames }: LoadedFile): KeptLoad => ({
  desired,
  secretEnvNames,
  envNames,
  cubePositions,
  cubeNames,
});

/** The positioned load: every problem of the file, each where it is. */
function loadPositioned(source: string, options: LoadOptions, absPath: string, reads: ReferencedReads): LoadedFile {
  const parsed = new ParsedFile(options.file, source);
  if (parsed.problems.length > 0) throw new LoadError(options.file, parsed.problems);
  const raw = parsed.value;
  if (parsed.problems.length > 0) throw new LoadError(options.file, parsed.problems);
  const found = envFound();
  resolveEnvIn(raw, options.env, found);
  parsed.addIssues(found.issues, { sayPath: false });
  const result = DesiredStateDocument.safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) parsed.addZodIssue(issue, raw);
    // normalize() will not run on an invalid document: report its duplicates now, so every problem shows at once.
    parsed.addIssues(duplicateIssues(identityFieldsOf(raw)), { sayPath: true });
    throw new LoadError(options.file, parsed.problems);
  }
  try {
    const desired = normalize(result.data, fileAccess(dirname(absPath), reads, options));
    if (parsed.problems.length > 0) throw new LoadError(options.file, parsed.problems);
    const cubeNames = result.data.cubes.map((cube) => cube.name);
    const kept = keptLoad(desired, found, parsed.cubePositions(result.data), cubeNames);
    return { file: options.file, absPath, ...kept, locate: (path) => parsed.positionOf(path) };
  } catch (e) {
    if (!(e instanceof DesiredStateError)) throw e;
    // The walk's own message about the same spot (e.g. a literal password) is said once.
    parsed.addIssues(e.issues, { sayPath: true, skipReportedSpots: true });
    throw new LoadError(options.file, parsed.problems);
  }
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
