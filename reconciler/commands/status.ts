import { Option, type Command } from "commander";
import { resolve } from "node:path";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { exitWith } from "./options.js";
import { parseOptions } from "../arguments/options.js";

const StatusOptions = z.object({
  url: z.string().check(z.minLength(1, "--url names the watch's HTTP port, e.g. --url http://127.0.0.1:9464")),
  statusAuthFile: z.optional(z.string().check(z.minLength(1))),
  format: z.enum(["text", "json", "yaml"]),
  timeout: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(600)), 10),
});

export function register(program: Command, io: CliIo): void {
  program
    .command("status")
    .description("print what a running watch is doing (its /status): source, space, last rounds, drift, rollouts, pacing")
    .option("--url <url>", "the watch's HTTP port (its --metrics-port), e.g. http://127.0.0.1:9464")
    .option("--status-auth-file <path>", "the file the watch's --status-auth-file names: USER:PASSWORD or a TOKEN")
    .option("--timeout <seconds>", "give up after this long", "10")
    .addOption(new Option("--format <format>", "output format (json, yaml: for scripts)").choices(["text", "json", "yaml"]).default("text"))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform watch --apply --repo https://github.com/acme/fleet.git --metrics-port 9464 &
  $ cubeform status --url http://127.0.0.1:9464
  $ cubeform status --url http://127.0.0.1:9464 -o json | jq '.source.appliedRevision'

The same as the status page (open the URL in a browser) for a terminal. Exit 0 when the answer
came, 1 when it did not (connection refused, 401, not a watch).`,
    )
    .action(async (raw: unknown) => {
      const { runStatus } = await import("../actions/status.js");
      const { url, statusAuthFile, format, timeout } = parseOptions(StatusOptions, { url: "", ...(raw as object) });
      exitWith(
        await runStatus(
          {
            url,
            format,
            timeoutMs: timeout * 1000,
            statusAuthFile: statusAuthFile === undefined ? undefined : resolve(cwdOf(io), statusAuthFile),
          },
          io,
        ),
      );
    });
}
