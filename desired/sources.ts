/**
 * What `-f` names: one file, several, a directory of `.yaml`/`.yml` files, or `-` for standard input. Each file is loaded on
 * its own (its own defaults, paths relative to it) and the fleets are merged; a cube declared in two files is an error.
 */
import { readdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { DeclaredCube, DesiredState } from "../engine/types.js";
import { formatBytes, tryOr } from "../system/files.js";
import { LoadError, SourceError, UnreadableFileError, type FileProblem } from "./errors.js";
import { FLEET_FILE } from "./limits.js";
import { Defaults } from "../schema/desired.js";
import { loadDesiredStateSync, type IssuePath, type LoadedFile, type LoadOptions, type Position } from "./load.js";

export const STDIN = "-";

type Stdin = NodeJS.ReadableStream & { isTTY?: boolean };
const STDIN_NAME = "<stdin>";

/** Each file is loaded with these options (LoadOptions): the names the user gave, and standard input for `-`. */
export interface LoadFilesOptions extends Omit<LoadOptions, "file" | "source"> {
  files: readonly string[];
  /** Standard input, opened only for `-` (opening it costs a few ms of every command). */
  openStdin?: () => Stdin | undefined;
}

/** A position that may be in any of the loaded files. */
export type FilePosition = Position & { file: string };

export interface LoadedFiles extends Omit<LoadedFile, "cubePositions" | "locate"> {
  cubePositions: Record<string, FilePosition>;
  /** Where a cube's field is (see LoadedFile.locate), in the file that declares the cube. */
  locateCube(cubeName: string, field: IssuePath): FilePosition;
  /** "FILE:LINE:COL" of each rule of desired.policies, in order (desired/policy.ts). */
  policySources?: string[];
}

export async function loadDesiredFiles(options: LoadFilesOptions): Promise<LoadedFiles> {
  checkStdinOnce(options.files);
  const stdin = options.files.includes(STDIN) ? await readStdin(options.openStdin?.()) : undefined;
  return loadDesiredFilesSync(options, stdin);
}

/** The same load, synchronously (the Pulumi Fleet component loads in its constructor): `stdin` is the text `-` stands for. */
export function loadDesiredFilesSync(options: LoadFilesOptions, stdin?: string): LoadedFiles {
  const { names, listed } = expand(options.files, options.cwd);
  const loaded: LoadedFile[] = [];
  const problems: FileProblem[] = [];
  for (const name of names) {
    try {
      const { files: _files, openStdin: _stdin, ...common } = options;
      if (name === STDIN && stdin === undefined)
        throw new SourceError("file_unreadable", () => "standard input is not read here: name the desired-state files");
      loaded.push(
        loadDesiredStateSync({ ...common, file: name === STDIN ? STDIN_NAME : name, source: name === STDIN ? stdin : undefined }),
      );
    } catch (e) {
      // A file a directory holds that cannot be read is that file's problem, told beside the others'.
      if (e instanceof UnreadableFileError && listed.has(name))
        problems.push({ file: name, line: 0, col: 0, message: `cannot read: ${e.reason}` });
      else if (e instanceof LoadError) problems.push(...e.problems);
      else throw e;
    }
  }
  if (problems.length > 0) throw new LoadError(filesOf(problems), problems);
  const last = options.cache?.merged;
  if (last !== undefined && last.parts.length === loaded.length && last.parts.every((part, i) => part === loaded[i]))
    return last.result as LoadedFiles;
  const merged = merge(loaded);
  if (options.cache) options.cache.merged = { parts: loaded, result: merged };
  return merged;
}

/** The files' names joined for messages ("a.yaml, b.yaml"). */
function label(names: readonly string[]): string {
  return names.map((n) => (n === STDIN ? STDIN_NAME : n)).join(", ");
}

/** The files that have a problem, for the final line: of 5,000 files loaded, the one that is bad. */
function filesOf(problems: readonly FileProblem[]): string {
  return [...new Set(problems.map((p) => p.file))].join(", ");
}

/** The files to load, and which of them a directory listed (rather than the caller naming them). */
function expand(files: readonly string[], cwd: string): { names: string[]; listed: Set<string> } {
  checkStdinOnce(files);
  const names: string[] = [];
  const listed = new Set<string>();
  for (const file of files) {
    const entries = file === STDIN ? undefined : directoryEntries(file, cwd);
    if (entries === undefined) names.push(file);
    else {
      names.push(...entries);
      for (const entry of entries) listed.add(entry);
    }
  }
  const seen = new Set<string>();
  const unique = names.filter((name) => {
    const key = name === STDIN ? name : resolve(cwd, name);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { names: unique, listed };
}

function checkStdinOnce(files: readonly string[]): void {
  if (files.filter((f) => f === STDIN).length > 1)
    throw new SourceError("invalid_option", (n) =>
      n.stdin ? `${n.stdin} (standard input) can be given only once` : "standard input can be named only once",
    );
}

/** The YAML files of a directory (sorted), or undefined when `file` is not a directory. */
function directoryEntries(file: string, cwd: string): string[] | undefined {
  const abs = isAbsolute(file) ? file : resolve(cwd, file);
  if (!tryOr(() => statSync(abs).isDirectory(), false)) return undefined; // a missing file is the loader's to report
  // Not a subdirectory: a link (even a broken or looping one) or a device is listed, so that its read reports it.
  const yamlFiles = readdirSync(abs, { withFileTypes: true })
    .filter((entry) => /\.ya?ml$/i.test(entry.name) && !entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  if (yamlFiles.length === 0)
    throw new SourceError(
      "file_unreadable",
      (n) =>
        `${file} is a directory with no .yaml or .yml files in it${n.file ? ` (${n.file} takes a file, a directory of them, or - for standard input)` : ""}`,
    );
  return yamlFiles.map((entry) => join(file, entry));
}

async function readStdin(stdin: Stdin | undefined): Promise<string> {
  if (stdin === undefined || stdin.isTTY)
    throw new SourceError(
      "file_unreadable",
      (n) =>
        `${n.stdin ?? "the source"} reads the desired state from standard input, but none is piped in${n.stdin ? ` (e.g. cat cubeform.yaml | cubeform plan ${n.stdin})` : ""}`,
    );
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk as Uint8Array);
    bytes += buffer.length;
    if (bytes > FLEET_FILE.maxBytes)
      throw new SourceError(
        "file_unreadable",
        (n) =>
          `${n.stdin ? `${n.stdin}: ` : ""}standard input is over the ${formatBytes(FLEET_FILE.maxBytes)} limit for ${FLEET_FILE.what}; nothing was read past it`,
      );
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Where each name is first declared (a name declared twice in one file is the loader's problem). */
function firstIndexes(names: readonly string[]): Map<string, number> {
  const indexes = new Map<string, number>();
  names.forEach((name, index) => {
    if (!indexes.has(name)) indexes.set(name, index);
  });
  return indexes;
}

function merge(loaded: LoadedFile[]): LoadedFiles {
  const [first] = loaded;
  if (first === undefined) throw new SourceError("file_unreadable", () => "no desired-state file given");
  const positions: Record<string, FilePosition> = {};
  const owners = new Map<string, LoadedFile>();
  const problems: FileProblem[] = [];
  const cubes: DesiredState["cubes"] = [];
  let space: { id: string; file: string } | undefined;
  let budget: { monthly: number; file: string } | undefined;
  // Each file's lists, joined at the end (one file's: taken as they are).
  const untargetedParts: DeclaredCube[][] = [];
  const cubeNameParts: string[][] = [];
  const indexes = new Map<LoadedFile, Map<string, number>>();
  const indexOf = (file: LoadedFile, name: string): number | undefined => {
    let known = indexes.get(file);
    if (known === undefined) indexes.set(file, (known = firstIndexes(file.cubeNames)));
    return known.get(name);
  };
  for (const file of loaded) {
    // A cube declared in two files is an error; one file's names need no claiming (10,000 of them: ~5 ms of a plan).
    const claim = (name: string): boolean => {
      if (loaded.length === 1) return true;
      const owner = owners.get(name);
      if (owner !== undefined && owner !== file) {
        const there = owner.locate(["cubes", indexOf(owner, name) ?? 0, "name"]);
        const here = file.locate(["cubes", indexOf(file, name) ?? 0, "name"]);
        problems.push({
          file: file.file,
          ...here,
          message: `cube "${name}" is also declared in ${owner.file}:${there.line}:${there.col}: declare each cube in one file only`,
        });
        return false;
      }
      if (owner === undefined) owners.set(name, file);
      return true;
    };
    for (const cube of file.desired.cubes) {
      if (!claim(cube.name)) continue;
      const at = file.cubePositions[cube.name];
      if (at !== undefined && positions[cube.name] === undefined) positions[cube.name] = { file: file.file, ...at };
      cubes.push(cube);
    }
    const fileUntargeted = file.desired.untargeted ?? [];
    untargetedParts.push(loaded.length === 1 ? fileUntargeted : fileUntargeted.filter((cube) => claim(cube.name)));
    cubeNameParts.push(file.cubeNames);
    const spaceId = file.desired.spaceId;
    if (spaceId !== undefined && space !== undefined && space.id !== spaceId) {
      problems.push({
        file: file.file,
        ...file.locate(["space"]),
        message: `space "${spaceId}" differs from space "${space.id}" in ${space.file}: the files of one run describe one space`,
      });
    }
    if (spaceId !== undefined) space ??= { id: spaceId, file: file.file };
    const monthly = file.desired.budget?.monthly;
    if (monthly !== undefined && budget !== undefined && budget.monthly !== monthly) {
      problems.push({
        file: file.file,
        ...file.locate(["budget", "monthly"]),
        message: `budget.monthly ${monthly} differs from ${budget.monthly} in ${budget.file}: the files of one run have one budget`,
      });
    }
    if (monthly !== undefined) budget ??= { monthly, file: file.file };
  }
  if (problems.length > 0) throw new LoadError(filesOf(problems), problems);
  const desired: DesiredState = { prune: loaded.some((f) => f.desired.prune), cubes };
  if (loaded.some((f) => f.desired.allowEmpty === true)) desired.allowEmpty = true;
  if (loaded.some((f) => f.desired.untargeted !== undefined)) desired.untargeted = ([] as DeclaredCube[]).concat(...untargetedParts);
  const cubeNames = ([] as string[]).concat(...cubeNameParts);
  if (space !== undefined) desired.spaceId = space.id;
  const ignored = [...new Set(loaded.flatMap((f) => f.desired.ignoreWarnings ?? []))];
  if (ignored.length > 0) desired.ignoreWarnings = ignored;
  if (budget !== undefined) desired.budget = { monthly: budget.monthly };
  const preview = loaded.find((f) => f.desired.preview !== undefined)?.desired.preview;
  if (preview !== undefined) desired.preview = preview;
  const policies = fleetPolicies(loaded);
  if (policies !== undefined) desired.policies = policies.rules;
  const groups = loaded.flatMap((f) => f.desired.groups ?? []);
  if (groups.length > 0) desired.groups = groups;
  // Webhooks are managed when any file declares them; a url declared twice is the loader's duplicate rule across files.
  const withWebhooks = loaded.filter((f) => f.desired.webhooks !== undefined);
  if (withWebhooks.length > 0) {
    desired.webhooks = withWebhooks.flatMap((f) => f.desired.webhooks ?? []);
    const urls = desired.webhooks.map((w) => w.url);
    const twice = urls.find((url, i) => urls.indexOf(url) !== i);
    if (twice !== undefined) {
      const declaring = label(withWebhooks.filter((f) => f.desired.webhooks?.some((w) => w.url === twice)).map((f) => f.file));
      throw new LoadError(declaring, [
        { file: declaring, line: 0, col: 0, message: `webhook ${twice} is declared in more than one file: declare each webhook once` },
      ]);
    }
  }
  return {
    file: label(loaded.map((f) => f.file)),
    absPath: first.absPath,
    desired,
    secretEnvNames: [...new Set(loaded.flatMap((f) => f.secretEnvNames))],
    envNames: [...new Set(loaded.flatMap((f) => f.envNames))],
    cubeNames,
    cubePositions: positions,
    ...(policies === undefined ? {} : { policySources: policies.sources }),
    // The file that declares the cube (the first, had several: they were refused above).
    locateCube: (cubeName, field) => {
      for (const file of loaded) {
        const index = indexOf(file, cubeName);
        if (index !== undefined) return { file: file.file, ...locateInFile(file, index, field) };
      }
      return { file: first.file, line: 0, col: 0 };
    },
  };
}

const DEFAULTABLE = new Set(Object.keys(Defaults.shape));
const samePlace = (a: Position, b: Position): boolean => a.line === b.line && a.col === b.col;

/** A cube's field; one the cube leaves to `defaults:` is where defaults sets it (a typo there is reported there). */
function locateInFile(file: LoadedFile, index: number, field: IssuePath): Position {
  const at = file.locate(["cubes", index, ...field]);
  if (!DEFAULTABLE.has(String(field[0])) || !samePlace(at, file.locate(["cubes", index]))) return at;
  const inDefaults = file.locate(["defaults", ...field]);
  return samePlace(inDefaults, file.locate(["defaults", ...field.slice(0, -1)])) ? at : inDefaults;
}

/** The rules the files add (`policies:`), each with where it is written. */
function fleetPolicies(loaded: readonly LoadedFile[]): { rules: NonNullable<DesiredState["policies"]>; sources: string[] } | undefined {
  const withRules = loaded.filter((f) => (f.desired.policies?.length ?? 0) > 0);
  if (withRules.length === 0) return undefined;
  const rules: NonNullable<DesiredState["policies"]> = [];
  const sources: string[] = [];
  for (const file of withRules) {
    (file.desired.policies ?? []).forEach((rule, i) => {
      const at = file.locate(["policies", i]);
      rules.push(rule);
      sources.push(`${file.file}:${at.line}:${at.col}`);
    });
  }
  return { rules, sources };
}
