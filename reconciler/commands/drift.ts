import type { Command } from "commander";
import * as z from "zod/mini";
import type { CliIo } from "../io.js";
import { addDnsReadOptions, addFormatOption, addSessionOptions, exitWith } from "./options.js";
import { FormatOption, parseOptions } from "../arguments/options.js";
import { dnsPaceOf, DnsReadOptions, SessionOptions } from "../arguments/connect.js";
import { addNotifyOptions, NotifyOptions, notifySettings } from "./notify-options.js";
import { addPolicyOptions, PolicyOptions } from "./policy-options.js";

const DriftOptions = z.object({
  ...SessionOptions.shape,
  ...FormatOption.shape,
  ...DnsReadOptions.shape,
  ...NotifyOptions.shape,
  policy: PolicyOptions.shape.policy,
});

export function register(program: Command, io: CliIo): void {
  const command = program.command("drift").description("report how the space differs from the file (read-only)");
  addNotifyOptions(addPolicyOptions(addDnsReadOptions(addSessionOptions(addFormatOption(command))), { overrides: false }))
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform drift
  $ cubeform drift --format github     # annotations + step summary in GitHub Actions
  $ cubeform drift --format json | jq '.plan.summary'
  $ cubeform drift --notify https://hooks.example.com/drift --notify-secret-file notify.secret
  $ cubeform drift --policy policy.yaml   # and what the live fleet breaks of the rules (warnings)

Reports changed fields, missing cubes, domains and ports, unmanaged cubes, blocked actions,
and domains whose DNS records are not all found (missing = not published yet, unknown = the
service could not check; neither is drift by itself). Record views are read --dns-concurrency at a
time and at most --dns-rate per window; a 429 is retried after its Retry-After, and a domain
whose records still could not be read is listed as "could not be checked".
Exit codes: 0 in sync, 2 drift, 1 error.`,
    )
    .action(async (raw: unknown) => {
      const { runDrift } = await import("../actions/drift.js");
      const { sessionContext } = await import("../session/repo-source.js");
      const { dnsConcurrency, dnsRate, policy, notify, notifyFormat, notifySecretFile, ...parsed } = parseOptions(DriftOptions, raw);
      const notifyTo = await notifySettings({ notify, notifyFormat, notifySecretFile }, io);
      const { policyFlags } = await import("../session/policy.js");
      const { cwdOf } = await import("../io.js");
      const policyOf = policyFlags({ policy }, io.env, cwdOf(io));
      exitWith(
        await runDrift(
          {
            ...(await sessionContext(parsed, raw, io)),
            dnsPace: dnsPaceOf({ dnsConcurrency, dnsRate }),
            policy: policyOf,
            ...(notifyTo ? { notify: notifyTo } : {}),
          },
          io,
        ),
      );
    });
}
