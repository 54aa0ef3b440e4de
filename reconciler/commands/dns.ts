import { Option, type Command } from "commander";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { addConnectOptions, addDnsReadOptions, addWaitOptions, exitWith, parseRateLimit } from "./options.js";
import { DNS_FORMATS, parseOptions, waitOptionsOf } from "../arguments/options.js";
import { ConnectOptions, dnsPaceOf, DnsReadOptions } from "../arguments/connect.js";

const DnsOptions = z.object({
  ...ConnectOptions.shape,
  ...DnsReadOptions.shape,
  // "table" was the text format's name before it was called text like every other command's.
  format: z._default(
    z.pipe(
      z.transform((value) => (value === "table" ? "text" : value)),
      z.enum(DNS_FORMATS),
    ),
    "text",
  ),
});

export function register(program: Command, io: CliIo): void {
  const command = program
    .command("dns")
    .description("show the DNS records a cube's domains need and whether they are published")
    .argument("<cube>", "the cube, by name (or id)")
    .argument("[domain]", "only this domain of the cube");
  addWaitOptions(addDnsReadOptions(addConnectOptions(command)), "poll until every record is found (or the timeout passes)", {
    timeout: "10m",
    interval: "5s",
  })
    // Offered to shell completion; checked by the schema above (which still takes the old name "table").
    .addOption(
      Object.assign(new Option("--format <format>", `output format: ${DNS_FORMATS.join(", ")}`).default("text"), {
        argChoices: [...DNS_FORMATS],
      }),
    )
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform dns web                          # every domain of cube "web"
  $ cubeform dns web www.example.com --wait   # until its records are published
  $ cubeform dns web --format zone >> example.com.zone

States: found; "not published yet" (missing); "could not check" (unknown: the service could not
look it up; says nothing about your DNS); "wrong value" (another value is published).
Proxy: "DNS only (grey cloud)" records must not be proxied by your DNS provider.
Exit codes: 0 when the records are complete or when not waiting; 1 when --wait timed out.`,
    )
    .action(async (cube: string, domain: string | undefined, raw: unknown) => {
      const { runDns } = await import("../actions/dns.js");
      const { rateLimit, dnsConcurrency, dnsRate, ...options } = parseOptions(DnsOptions, raw);
      const pace = { rateLimit: parseRateLimit(rateLimit), dnsPace: dnsPaceOf({ dnsConcurrency, dnsRate }) };
      exitWith(await runDns({ ...options, ...pace, cube, domain, ...waitOptionsOf(raw), cwd: cwdOf(io) }, io));
    });
}
