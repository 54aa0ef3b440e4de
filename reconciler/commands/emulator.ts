import type { Command } from "commander";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { exitWith } from "./options.js";
import { parseOptions } from "../arguments/options.js";

const EmulatorOptions = z.object({
  port: z._default(z.coerce.number().check(z.int(), z.minimum(0), z.maximum(65535)), 0),
  apiKey: z.optional(z.string().check(z.minLength(1))),
  space: z.optional(z.string().check(z.minLength(1))),
  state: z.optional(z.string().check(z.minLength(1))),
  rateLimit: z.optional(z.string()),
  deliverAnywhere: z._default(z.boolean(), false),
});

export function register(program: Command, io: CliIo): void {
  program
    .command("emulator")
    .description("serve the local Cube API emulator until Ctrl-C")
    .option("--port <port>", "port to listen on (0: any free port)", "0")
    .option("--api-key <key>", "owner key of the initial space (generated when absent)")
    .option("--space <id>", "id of the initial space")
    .option("--state <file>", "JSON file that keeps the emulator's state across restarts")
    .option("--rate-limit <N/SECONDS>", "mutations allowed per window (default 10/60)")
    .option(
      "--deliver-anywhere",
      "send webhook deliveries to any address (default: only to loopback addresses; others are recorded failed, nothing sent)",
    )
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform emulator --port 8787 --api-key kro_dev --space dev --state .cubeform/dev.json
  $ CUBE_API_URL=http://127.0.0.1:8787/api/v1 CUBE_API_KEY=kro_dev cubeform plan`,
    )
    .action(async (raw: unknown) => {
      const { runEmulator } = await import("../actions/emulator.js");
      exitWith(await runEmulator({ ...parseOptions(EmulatorOptions, raw), cwd: cwdOf(io) }, io));
    });
}
