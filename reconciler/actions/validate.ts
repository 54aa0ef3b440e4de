/** `cubeform validate`: load and check the file; never connects. */
import { LoadError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import { reportWarnings } from "../report/preflight.js";
import type { Format } from "../arguments/options.js";
import { loadSource, reportProblems, type SourceFlags } from "../session/load-source.js";
import type { SourceRevision } from "../../engine/types.js";

export interface ValidateContext extends SourceFlags {
  format: Format;
}

export async function runValidate(ctx: ValidateContext, io: CliIo): Promise<number> {
  try {
    const loaded = await loadSource(ctx, io);
    reportWarnings(loaded, io, ctx.format);
    const n = loaded.desired.cubes.length;
    const revision = "revision" in loaded ? (loaded.revision as SourceRevision) : undefined;
    if (ctx.format === "json")
      writeLine(io.stdout, JSON.stringify({ valid: true, file: loaded.file, cubes: n, ...(revision ? { source: revision } : {}) }));
    else
      writeLine(
        io.stdout,
        escapeText(
          `ok: ${n} ${n === 1 ? "cube" : "cubes"} (${loaded.file}${revision ? ` at commit ${revision.revision} of ${revision.repo}` : ""})`,
        ),
      );
    return 0;
  } catch (e) {
    if (e instanceof LoadError) reportProblems(e, ctx.format, io);
    throw e;
  }
}
