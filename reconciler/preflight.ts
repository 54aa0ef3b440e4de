/**
 * Checks of the loaded files that need no API: every --target names a declared cube, and
 * warnings about limits only the API can judge. (No client code here: validate loads this.)
 */
import type { DesiredState } from "../engine/types.js";
import { CliError } from "./errors.js";
import { writeLine, type CliIo } from "./io.js";
import { capWarnings } from "./limits.js";
import type { LoadedFiles } from "../desired/sources.js";
import { didYouMean } from "../desired/suggest.js";

/** Each --target must name a declared cube: a typo would otherwise plan nothing and say "No changes". */
export function checkTargets(desired: DesiredState, targets: readonly string[], file: string): void {
  const declared = (name: string): boolean => desired.cubes.some((c) => c.name === name) || (desired.untargeted?.some((c) => c.name === name) ?? false);
  for (const target of targets) {
    if (declared(target)) continue;
    const names = [...desired.cubes, ...(desired.untargeted ?? [])].map((c) => c.name);
    const hint = didYouMean(target, names);
    const known = hint === "" && names.length > 0 && names.length <= 10 ? `; the cubes are: ${names.join(", ")}` : "";
    throw new CliError("unknown_target", `--target ${target}: no cube named "${target}" is declared in ${file}${hint}${known}`);
  }
}

/** Warnings about limits only the API can judge, on stderr (they never change the exit code). */
export function reportWarnings(loaded: LoadedFiles, io: CliIo): void {
  for (const warning of capWarnings(loaded.desired)) {
    const at = warning.cubeName === undefined ? undefined : loaded.locateCube(warning.cubeName, ["resources"]);
    writeLine(io.stderr, `warning: ${at === undefined || at.line === 0 ? `${loaded.file}: ` : `${at.file}:${at.line}:${at.col}: `}${warning.message}`);
  }
}
