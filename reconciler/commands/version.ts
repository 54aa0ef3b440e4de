import type { Command } from "commander";
import { writeLine, type CliIo } from "../io.js";
import { VERSION } from "../version.js";

export function register(program: Command, io: CliIo): void {
  program
    .command("version")
    .description("print cubeform's version (the same as --version)")
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform version
  $ cubeform --version`,
    )
    .action(() => writeLine(io.stdout, VERSION));
}
