/** Where the desired state comes from (-f files or --repo), loaded for a command, and its problems printed in the machine formats. */
import type { LoadError } from "../errors.js";
import { RepoLoadError, type LoadedFiles, type LoadFilesOptions, type RepoLoader } from "../../desired/index.js";
import { writeLine, type CliIo } from "../io.js";
import { loadFleetForCli } from "../hints.js";
import { renderProblemsGithub } from "../render/github.js";
import type { Format } from "../arguments/options.js";

export interface SourceFlags {
  files: string[];
  cwd: string;
  /** --repo: the desired state at the ref's commit instead of `files`. */
  repo?: RepoLoader;
}

/** The desired state: the ref's commit with --repo, else the files (standard input opened only for `-f -`). */
export function loadSource(ctx: SourceFlags, io: CliIo, options: Partial<LoadFilesOptions> = {}): Promise<LoadedFiles> {
  if (ctx.repo !== undefined)
    return loadFleetForCli({ repo: ctx.repo, ...(options.diskCache === undefined ? {} : { diskCache: options.diskCache }) });
  return loadFleetForCli({
    files: ctx.files,
    cwd: ctx.cwd,
    env: io.env,
    openStdin: () => io.stdin,
    ...options,
  });
}

/** Machine formats get the problems on stdout too; stderr always gets them (from main). */
export function reportProblems(e: LoadError, format: Format, io: CliIo): void {
  if (format === "github") io.stdout.write(renderProblemsGithub(e.problems));
  // From a repository: the commit that failed, as a loaded plan names the commit it is of.
  if (format === "json")
    writeLine(
      io.stdout,
      JSON.stringify({ valid: false, problems: e.problems, ...(e instanceof RepoLoadError ? { source: e.source } : {}) }),
    );
}
