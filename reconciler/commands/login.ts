import { Option, type Command } from "commander";
import * as z from "zod/mini";
import type { CliIo } from "../io.js";
import { exitWith } from "./options.js";
import { DAY2_FORMATS, parseOptions } from "../arguments/options.js";

const LoginOptions = z.object({
  baseUrl: z.optional(z.string().check(z.minLength(1))),
  context: z._default(z.string().check(z.trim(), z.minLength(1)), "default"),
  format: z._default(z.enum(DAY2_FORMATS), "text"),
});

export function register(program: Command, io: CliIo): void {
  program
    .command("login")
    .description("log in with the browser (device code) and save the key where the krova CLI keeps it")
    .option("--base-url <url>", "the API to log in to (default: $CUBE_API_URL, else the live service)")
    .option("--context <name>", "the name to save the credentials under (and make current)", "default")
    .addOption(new Option("--format <format>", "output format").choices(DAY2_FORMATS).default("text"))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform login                                   # open the URL it prints, confirm the code
  $ cubeform login --context staging
  $ KROVA_CONTEXT=staging cubeform cube list

Credentials are saved in $XDG_CONFIG_HOME/krova/config.json (else ~/.config/krova/config.json),
mode 0600, the file the krova CLI reads and writes. Every command uses it when CUBE_API_KEY /
KROVA_API_KEY are not set; KROVA_CONTEXT picks a context. The key is never printed.`,
    )
    .action(async (raw: unknown) => {
      const { runLogin } = await import("../actions/login.js");
      exitWith(await runLogin(parseOptions(LoginOptions, raw), io));
    });
}
