/** Checks of the loaded files that need no API: --target names, and warnings about limits only the API can judge (no client code: validate loads this). */
import type { DesiredState } from "../../engine/types.js";
import { CliError } from "../errors.js";
import type { CliIo } from "../io.js";
import type { Format } from "../arguments/options.js";
import { annotation } from "../render/github.js";
import { escapeText } from "../render/escape.js";
import { capWarnings } from "./limits.js";
import { type LoadedFiles, didYouMean } from "../../desired/index.js";

/** Each --target must name a declared cube: a typo would otherwise plan nothing and say "No changes". */
export function checkTargets(desired: DesiredState, targets: readonly string[], file: string): void {
  // A group's name targets its members.
  const names = [...desired.cubes, ...(desired.untargeted ?? []), ...(desired.groups ?? [])].map((c) => c.name);
  for (const target of targets) {
    if (names.includes(target)) continue;
    const hint = didYouMean(target, names);
    const known = hint === "" && names.length > 0 && names.length <= 10 ? `; the cubes are: ${names.join(", ")}` : "";
    throw new CliError("unknown_target", `--target ${target}: no cube named "${target}" is declared in ${file}${hint}${known}`);
  }
}

const said = new WeakMap<CliIo, Set<string>>();

/**
 * Warnings about limits only the API can judge (they never change the exit code): each said once per run (watch re-reads the file every round), none
 * of a kind the file ignores; on stderr, or as an annotation (stdout) under --format github.
 */
export function reportWarnings(loaded: LoadedFiles, io: CliIo, format?: Format): void {
  const seen = said.get(io) ?? new Set<string>();
  said.set(io, seen);
  for (const warning of capWarnings(loaded.desired)) {
    if (loaded.desired.ignoreWarnings?.includes(warning.kind)) continue;
    const found = warning.cubeName === undefined ? undefined : loaded.locateCube(warning.cubeName, ["resources"]);
    const at = found === undefined || found.line === 0 ? { file: loaded.file } : found;
    const message = `${warning.message} (To silence it: warnings: { ignore: [${warning.kind}] } in the file.)`;
    const line =
      format === "github"
        ? annotation("warning", at, message)
        : `${escapeText(`warning: ${"line" in at ? `${at.file}:${at.line}:${at.col}` : at.file}: ${message}`)}\n`;
    if (seen.has(line)) continue;
    seen.add(line);
    (format === "github" ? io.stdout : io.stderr).write(line);
  }
}
