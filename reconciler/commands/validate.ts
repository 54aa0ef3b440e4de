import type { Command } from "commander";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { addFileOption, addFormatOption, exitWith, addRepoOptions } from "./options.js";
import { FileOptions, FormatOption, parseOptions, RepoOptions } from "../arguments/options.js";

const ValidateOptions = z.object({ ...FileOptions.shape, ...FormatOption.shape, ...RepoOptions.shape });

export function register(program: Command, io: CliIo): void {
  const command = program.command("validate").description("check the desired-state file without contacting the API");
  addRepoOptions(addFormatOption(addFileOption(command)))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform validate                      # checks ./cubeform.yaml
  $ cubeform validate -f fleet/prod.yaml
  $ cubeform validate --format github      # problems as GitHub annotations
  $ cubeform validate --repo https://github.com/acme/fleet.git --ref main --path fleet/

Every problem is reported as FILE:LINE:COL: message. Exit code 0 when valid, 1 otherwise.`,
    )
    .action(async (raw: unknown) => {
      const { runValidate } = await import("../actions/validate.js");
      const { takeRepo } = await import("../session/repo-source.js");
      const { file, ...parsed } = parseOptions(ValidateOptions, raw);
      const { repo, rest } = await takeRepo(parsed, (raw as { file?: unknown }).file, cwdOf(io), io);
      exitWith(await runValidate({ ...rest, files: file, cwd: cwdOf(io), ...(repo ? { repo } : {}) }, io));
    });
}
