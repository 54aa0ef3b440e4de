/**
 * The light load: yaml-split.ts cuts a plainly shaped file cube by cube, and each cube is resolved and validated as soon as it
 * is parsed. undefined at the first problem of any kind: the positioned load (load.ts) finds them all and says where.
 */
import { dirname } from "node:path";
import type { DeclaredCube } from "../engine/types.js";
import { DesiredCubeInput, DesiredStateDocument } from "../schema/desired.js";
import { envFound, keptLoad, resolveEnvIn } from "./env.js";
import { DesiredStateError, type Position } from "./errors.js";
import { fileAccess, type ReferencedReads } from "./file-access.js";
import type { LoadedFile, LoadOptions } from "./load-types.js";
import { duplicateIssues, normalize, type IdentityFields } from "./normalize.js";
import { positionsByName } from "./parse.js";
import { locator } from "./parsed-file.js";
import { parseSplit } from "./yaml-split.js";

/**
 * zod compiles a fast parser for an object schema on its first parse (new Function: some ms in every run). For a file's first
 * cubes, and its head, parsing without it is quicker; past them the compiled one pays. Same checks either way.
 */
const UNCOMPILED_PARSES = 64;
const UNCOMPILED = { jitless: true } as const;

/** undefined when the file cannot be cut or has any problem: the positioned load reports it. */
export function loadLight(source: string, options: LoadOptions, absPath: string, reads: ReferencedReads): LoadedFile | undefined {
  const found = envFound();
  const targets = options.targets !== undefined && options.targets.length > 0 ? new Set(options.targets) : undefined;
  let parses = 0;
  // Each cube is resolved and validated as soon as it is parsed: only validated cubes accumulate.
  const split = parseSplit<LightCube>(source, {
    // With targets, a cube no target names is read for its identity alone, from its text when it is plain enough.
    ...(targets === undefined
      ? {}
      : {
          identify: ({ name, id, hostnames }) =>
            targets.has(name) ? undefined : { identity: { name, id, domains: hostnames.map((hostname) => ({ hostname })) } },
        }),
    convert: (cube) => {
      const stub = targets === undefined ? undefined : untargetedStub(cube, targets);
      if (stub !== undefined) return stub;
      resolveEnvIn(cube, options.env, found);
      if (found.issues.length > 0) return undefined;
      const result = DesiredCubeInput.safeParse(cube, parses++ < UNCOMPILED_PARSES ? UNCOMPILED : undefined);
      if (!result.success) return undefined;
      const { name, id, domains } = result.data;
      return { spec: result.data, identity: { name, id, domains: (domains ?? []).map((d) => ({ hostname: d.hostname })) } };
    },
  });
  if (split === undefined) return undefined;
  resolveEnvIn(split.head, options.env, found);
  if (found.issues.length > 0) return undefined;
  const result = DesiredStateDocument.safeParse({ ...split.head, cubes: [] }, UNCOMPILED);
  if (!result.success) return undefined;
  // normalize() finds the duplicates among the validated cubes; with targets, the stubs count too.
  if (targets !== undefined && duplicateIssues(split.cubes.map((c) => c.identity)).length > 0) return undefined;
  const specs: DesiredCubeInput[] = [];
  const specStarts: (Position | undefined)[] = [];
  const untargeted: DeclaredCube[] = [];
  split.cubes.forEach((cube, i) => {
    if (cube.spec === undefined)
      untargeted.push(cube.identity.id === undefined ? { name: cube.identity.name } : { name: cube.identity.name, id: cube.identity.id });
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
  return {
    file: options.file,
    absPath,
    ...keptLoad(desired, found, cubePositions, cubeNames),
    locate: locator(options.file, () => source),
  };
}

/** A cube of the light load: validated (spec), or only identified when the targets leave it out. */
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

/** What `run` returns, or undefined when it throws an `Expected` error (any other is thrown on). */
export function undefinedOn<T>(Expected: new (...args: never[]) => Error, run: () => T): T | undefined {
  try {
    return run();
  } catch (e) {
    if (e instanceof Expected) return undefined;
    throw e;
  }
}
