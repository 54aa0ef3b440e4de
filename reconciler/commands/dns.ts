import { Option, type Command } from "commander";
import { z } from "zod";
import { cwdOf, type CliIo } from "../io.js";
import { parseDuration } from "../../system/time.js";
import { addConnectOptions, addDnsReadOptions, ConnectOptions, DNS_FORMATS, DnsReadOptions, exitWith, parseOptions, parseRateLimit } from "./options.js";

const DnsOptions = z.object({
  ...ConnectOptions.shape,
  ...DnsReadOptions.shape,
  wait: z.boolean().default(false),
  timeout: z.string().default("10m"),
  interval: z.string().default("5s"),
  // "table" was the text format's name before it was called text like every other command's.
  format: z.preprocess((value) => (value === "table" ? "text" : value), z.enum(DNS_FORMATS)).default("text"),
});

export function register(program: Command, io: CliIo): void {
  const command = program
    .command("dns")
    .description("show the DNS records a cube's domains need and whether they are published")
    .argument("<cube>", "the cube, by name (or id)")
    .argument("[domain]", "only this domain of the cube");
  addDnsReadOptions(addConnectOptions(command))
    .option("--wait", "poll until every record is found (or the timeout passes)", false)
    .option("--timeout <duration>", "how long --wait waits (e.g. 90s, 10m)", "10m")
    .option("--interval <duration>", "how often --wait checks", "5s")
    .addOption(new Option("--format <format>", `output format: ${DNS_FORMATS.join(", ")}`).default("text"))
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
      const { rateLimit, timeout, interval, dnsConcurrency, dnsRate, ...options } = parseOptions(DnsOptions, raw);
      const context = {
        ...options,
        cube,
        ...(domain !== undefined ? { domain } : {}),
        timeoutMs: parseDuration(timeout, "--timeout"),
        intervalMs: parseDuration(interval, "--interval"),
        rateLimit: parseRateLimit(rateLimit),
        dnsPace: { concurrency: dnsConcurrency, rate: parseRateLimit(dnsRate, "--dns-rate") },
        cwd: cwdOf(io),
      };
      exitWith(await runDns(context, io));
    });
}
