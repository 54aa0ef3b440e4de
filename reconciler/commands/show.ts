import { Option, type Command } from "commander";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { addConnectOptions, addDnsReadOptions, addTargetOption, collect, exitWith, parseRateLimit } from "./options.js";
import { DAY2_FORMATS, parseOptions } from "../arguments/options.js";
import { ConnectOptions, dnsPaceOf, DnsReadOptions, TargetOption } from "../arguments/connect.js";

const ShowOptions = z.object({
  ...ConnectOptions.shape,
  ...DnsReadOptions.shape,
  ...TargetOption.shape,
  file: z._default(z.array(z.string().check(z.minLength(1))), []),
  format: z._default(z.enum(DAY2_FORMATS), "text"),
});

export function register(program: Command, io: CliIo): void {
  const command = program
    .command("show")
    .description("how to reach the space's cubes: ssh command, TCP host:port, DNS records to publish (read-only)")
    .addOption(
      new Option("-f, --file <path>", "only the cubes this desired-state file declares (repeatable; a directory; - for standard input)")
        .argParser(collect)
        .default([], "every cube of the space"),
    );
  addDnsReadOptions(addTargetOption(addConnectOptions(command)))
    .addOption(new Option("--format <format>", "output format (json: for scripts)").choices(DAY2_FORMATS).default("text"))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform show                          # every cube of the space
  $ cubeform show -f cubeform.yaml         # only the cubes the file declares
  $ cubeform show --target web             # one cube
  $ cubeform show --format json | jq -r '.cubes[] | .ssh.command'

For each cube: its state, the ssh command (\`cubeform cube ssh NAME\` pins the host key and
can run it), each published TCP port as host:port with who may connect, and each domain's
DNS records with whether they are published yet (\`cubeform dns NAME --wait\` waits for them).
\`apply\` prints the same for the cubes it changed. A table of the cubes and their states:
\`cubeform cube list\`.
Exit codes: 0 shown, 1 error.`,
    )
    .action(async (raw: unknown) => {
      const { runShow } = await import("../actions/show.js");
      const { rateLimit, dnsConcurrency, dnsRate, target, file, ...options } = parseOptions(ShowOptions, raw);
      const pace = { rateLimit: parseRateLimit(rateLimit), dnsPace: dnsPaceOf({ dnsConcurrency, dnsRate }) };
      exitWith(await runShow({ ...options, ...pace, files: file, targets: target, cwd: cwdOf(io) }, io));
    });
}
