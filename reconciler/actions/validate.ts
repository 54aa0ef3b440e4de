/** `cubeform validate`: load and check the file; never connects. */
import { LoadError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { loadDesiredFiles } from "../../desired/sources.js";
import { renderProblemsGithub } from "../render/github.js";
import { reportWarnings } from "../preflight.js";
import type { Format } from "../commands/options.js";

export interface ValidateContext {
  files: string[];
  cwd: string;
  format: Format;
}

export async function runValidate(ctx: ValidateContext, io: CliIo): Promise<number> {
  try {
    // stdin is opened only for `-f -`.
    const loaded = await loadDesiredFiles({
      files: ctx.files,
      cwd: ctx.cwd,
      env: io.env,
      get stdin() {
        return io.stdin;
      },
    });
    reportWarnings(loaded, io);
    const n = loaded.desired.cubes.length;
    if (ctx.format === "json") writeLine(io.stdout, JSON.stringify({ valid: true, file: loaded.file, cubes: n }));
    else writeLine(io.stdout, `ok: ${n} ${n === 1 ? "cube" : "cubes"} (${loaded.file})`);
    return 0;
  } catch (e) {
    if (e instanceof LoadError) reportProblems(e, ctx.format, io);
    throw e;
  }
}

/** Machine formats get the problems on stdout too; stderr always gets them (from main). */
export function reportProblems(e: LoadError, format: Format, io: CliIo): void {
  if (format === "github") io.stdout.write(renderProblemsGithub(e.problems));
  if (format === "json") writeLine(io.stdout, JSON.stringify({ valid: false, problems: e.problems }));
}
