/** `cubeform validate`: load and check the file; never connects. */
import { LoadError } from "../errors.js";
import { RepoLoadError, type LoadedFiles, type LoadFilesOptions, type RepoLoader } from "../../desired/index.js";
import { writeLine, type CliIo } from "../io.js";
import { loadFleetForCli } from "../hints.js";
import { renderProblemsGithub } from "../render/github.js";
import { escapeText } from "../render/escape.js";
import { reportWarnings } from "../report/preflight.js";
import type { Format } from "../arguments/options.js";
import type { SourceRevision } from "../../engine/types.js";

export interface ValidateContext {
  files: string[];
  cwd: string;
  format: Format;
  /** --repo: the desired state at the ref's commit instead of `files`. */
  repo?: RepoLoader;
}

/** The desired state: the ref's commit with --repo, else the files (standard input opened only for `-f -`). */
export function loadSource(ctx: Omit<ValidateContext, "format">, io: CliIo, options: Partial<LoadFilesOptions> = {}): Promise<LoadedFiles> {
  if (ctx.repo !== undefined) return loadFleetForCli({ repo: ctx.repo, ...(options.diskCache === undefined ? {} : { diskCache: options.diskCache }) });
  return loadFleetForCli({
    files: ctx.files,
    cwd: ctx.cwd,
    env: io.env,
    openStdin: () => io.stdin,
    ...options,
  });
}

export async function runValidate(ctx: ValidateContext, io: CliIo): Promise<number> {
  try {
    const loaded = await loadSource(ctx, io);
    reportWarnings(loaded, io, ctx.format);
    const n = loaded.desired.cubes.length;
    const revision = "revision" in loaded ? (loaded.revision as SourceRevision) : undefined;
    if (ctx.format === "json") writeLine(io.stdout, JSON.stringify({ valid: true, file: loaded.file, cubes: n, ...(revision ? { source: revision } : {}) }));
    else writeLine(io.stdout, escapeText(`ok: ${n} ${n === 1 ? "cube" : "cubes"} (${loaded.file}${revision ? ` at commit ${revision.revision} of ${revision.repo}` : ""})`));
    return 0;
  } catch (e) {
    if (e instanceof LoadError) reportProblems(e, ctx.format, io);
    throw e;
  }
}

/** Machine formats get the problems on stdout too; stderr always gets them (from main). */
export function reportProblems(e: LoadError, format: Format, io: CliIo): void {
  if (format === "github") io.stdout.write(renderProblemsGithub(e.problems));
  // From a repository: the commit that failed, as a loaded plan names the commit it is of.
  if (format === "json") writeLine(io.stdout, JSON.stringify({ valid: false, problems: e.problems, ...(e instanceof RepoLoadError ? { source: e.source } : {}) }));
}
