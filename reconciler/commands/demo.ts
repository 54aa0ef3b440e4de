import type { Command } from "commander";
import type { CliIo } from "../io.js";
import { exitWith } from "./options.js";

export function register(program: Command, io: CliIo): void {
  program
    .command("demo")
    .description("apply examples/fleet.yaml to the embedded emulator and show the result (no account needed)")
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform demo
  $ npm start                # the same, from a clone

Runs plan, apply, the DNS records to publish, and a second plan, against a fresh in-process
emulator whose state is thrown away afterwards. This is what \`npm start\` runs.`,
    )
    .action(async () => {
      const { runDemo } = await import("../actions/demo.js");
      exitWith(await runDemo({}, io));
    });
}
