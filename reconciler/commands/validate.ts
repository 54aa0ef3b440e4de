import type { Command } from "commander";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { addFileOption, addFormatOption, exitWith, FileOptions, FormatOption, parseOptions } from "./options.js";

const ValidateOptions = z.object({ ...FileOptions.shape, ...FormatOption.shape });

export function register(program: Command, io: CliIo): void {
  const command = program.command("validate").description("check the desired-state file without contacting the API");
  addFormatOption(addFileOption(command))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform validate                      # checks ./cubeform.yaml
  $ cubeform validate -f fleet/prod.yaml
  $ cubeform validate --format github      # problems as GitHub annotations

Every problem is reported as FILE:LINE:COL: message. Exit code 0 when valid, 1 otherwise.`,
    )
    .action(async (raw: unknown) => {
      const { runValidate } = await import("../actions/validate.js");
      const { file, ...options } = parseOptions(ValidateOptions, raw);
      exitWith(await runValidate({ ...options, files: file, cwd: cwdOf(io) }, io));
    });
}
