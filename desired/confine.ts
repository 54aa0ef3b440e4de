/**
 * A checkout is hostile input (Argo CD's CVE-2022-24348, CVE-2022-24730, CVE-2023-40026: a manifest naming `../` or a symlink
 * out of the repository read other tenants' files). A path the fleet names is resolved against the checkout's real path after
 * symlinks; what lands outside it, or is not a regular file, is refused. A webhook's secretFile goes under the secrets directory.
 */
import { realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { tryOr } from "../system/files.js";
import { InputProblem, SourceError } from "./errors.js";

/** Whether `path` is `dir` or below it (both absolute, already real). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The real path of a file the fleet names; throws a message the loader puts at the field's position. */
export function confinedPath(root: string, baseDir: string, named: string): string {
  if (isAbsolute(named))
    throw new Error(
      `an absolute path is refused in a fleet from a repository: name a file inside the repository, relative to the YAML file`,
    );
  const wanted = resolve(baseDir, named);
  if (!isInside(root, wanted)) throw new Error(`the path leaves the repository checkout ("..") and is refused`);
  const real = tryOr(() => realpathSync(wanted), undefined);
  if (real === undefined) throw new Error(`no such file in the repository (paths are relative to the YAML file)`);
  if (!isInside(root, real)) throw new Error(`the path is a symlink that leads outside the repository checkout, and is refused`);
  if (!statSync(real).isFile()) throw new Error(`not a regular file`);
  return real;
}

/** The YAML file itself (the source's path, or an entry of its directory) must be inside the checkout too. */
export function confineSource(root: string, absPath: string, shown: string): void {
  const real = tryOr(() => realpathSync(absPath), undefined); // a missing file is the loader's to report
  if (real !== undefined && !isInside(root, real))
    throw new SourceError("file_unreadable", () => `${shown} is a symlink that leads outside the repository checkout, and is refused`);
}

/**
 * The first part of `path` (relative to the checkout `root`, already real) that is a symlink leading out of it, as named inside
 * the repository ("fleet" of "fleet/prod.yaml"); undefined when none does. Nothing past it is looked at: neither the name of
 * the place it leads to, nor what that place holds.
 */
export function symlinkOut(root: string, path: string): string | undefined {
  const parts = path.split(/[\\/]+/).filter((part) => part !== "" && part !== ".");
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join("/");
    const real = tryOr(() => realpathSync(resolve(root, prefix)), undefined);
    if (real === undefined) return undefined; // missing: the caller says so
    if (!isInside(root, real)) return prefix;
  }
  return undefined;
}

/** Where a webhook's secret goes for a fleet from a repository: under the operator's directory, by a relative path that stays inside it (after symlinks). */
export function secretPathUnder(secretsDir: string | undefined, named: string): string {
  if (secretsDir === undefined)
    throw new InputProblem(
      "a fleet from a repository writes webhook secrets only under a secrets directory the operator names, and none is named",
      "secretsDir",
    );
  if (isAbsolute(named))
    throw new InputProblem(
      "an absolute secretFile is refused in a fleet from a repository: name a path relative to the secrets directory",
      "secretsDir",
    );
  const base = tryOr(() => realpathSync(secretsDir), secretsDir);
  const wanted = resolve(base, named);
  if (!isInside(base, wanted) || wanted === base)
    throw new InputProblem("the secretFile leaves the secrets directory and is refused", "secretsDir");
  const existing = nearestExisting(wanted);
  if (
    !isInside(
      base,
      tryOr(() => realpathSync(existing), existing),
    )
  )
    throw new InputProblem("the secretFile leads outside the secrets directory through a symlink, and is refused", "secretsDir");
  return wanted;
}

function nearestExisting(path: string): string {
  let current = path;
  for (;;) {
    try {
      statSync(current);
      return current;
    } catch {
      const parent = dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}
