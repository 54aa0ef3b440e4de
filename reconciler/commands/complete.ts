import type { Command } from "commander";
import { CliError } from "../errors.js";
import type { CliIo } from "../io.js";
import { exitWith } from "./options.js";

/** What the completion scripts ask for (hidden: not in --help, nor offered by completion). */
export const COMPLETABLE = ["cubes"] as const;

export function register(program: Command, io: CliIo): void {
  program
    .command("__complete", { hidden: true })
    .description("print live names for the shell completion scripts, one a line (nothing on any error)")
    .argument("<what>", COMPLETABLE.join(", "))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform __complete cubes    # what Tab offers after \`cubeform cube ssh\` (see: cubeform completion)

Reads the key like every other command (no --emulator), sends one request and gives up after 2 s;
on any error it prints nothing and exits 0.`,
    )
    .action(async (what: string) => {
      if (!(COMPLETABLE as readonly string[]).includes(what)) throw new CliError("invalid_option", `nothing to complete named "${what}"`);
      const { runCompleteCubes } = await import("../actions/complete.js");
      exitWith(await runCompleteCubes(io));
    });
}
