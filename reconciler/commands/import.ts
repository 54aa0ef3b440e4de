import { Option, type Command } from "commander";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { addConnectOptions, exitWith, parseRateLimit } from "./options.js";
import { parseOptions } from "../arguments/options.js";
import { ConnectOptions } from "../arguments/connect.js";

const ImportOptions = z.object({
  ...ConnectOptions.shape,
  output: z.optional(z.string().check(z.minLength(1))),
  force: z._default(z.boolean(), false),
  format: z._default(
    z.enum(["yaml", "pulumi"], { message: "--format (-o) must be yaml or pulumi; the file to write is -O/--output FILE" }),
    "yaml",
  ),
});

export function register(program: Command, io: CliIo): void {
  const command = program
    .command("import")
    .description(
      "write a desired-state file (or a Pulumi program) that describes the live space (adopt an existing fleet; see also: upload)",
    );
  addConnectOptions(command)
    .option("-O, --output <file>", "write the YAML (or the program) here instead of stdout; -o is --format, as everywhere")
    .option("--force", "overwrite --output when it exists", false)
    // Offered to shell completion; checked by the schema above.
    .addOption(
      Object.assign(
        new Option(
          "--format <format>",
          "yaml (a desired-state file) or pulumi (a TypeScript Pulumi program that adopts the live resources)",
        ).default("yaml"),
        { argChoices: ["yaml", "pulumi"] },
      ),
    )
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform import -O cubeform.yaml
  $ export CUBE_SSH_PUBLIC_KEY="$(cat ~/.ssh/id_ed25519.pub)"
  $ cubeform plan                     # no changes: the file now describes the space
  $ cubeform import -o pulumi -O index.ts    # -o is --format, -O is --output
  $ pulumi up                         # adopts every resource unchanged; the next up shows no changes

The API never returns SSH keys, cloud-init or basic-auth passwords: the file reads the key from
CUBE_SSH_PUBLIC_KEY (used only when a cube is created), and comments say what else to add.

Not the same as \`cubeform upload ARCHIVE.cube\`, which creates a NEW cube from a .cube archive.`,
    )
    .action(async (raw: unknown) => {
      const { runImport } = await import("../actions/import.js");
      const { rateLimit, ...options } = parseOptions(ImportOptions, raw);
      exitWith(await runImport({ ...options, rateLimit: parseRateLimit(rateLimit), cwd: cwdOf(io) }, io));
    });
}
