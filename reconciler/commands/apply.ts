import { Option, type Command } from "commander";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { CliError } from "../errors.js";
import { addPlanFlagOptions, addSessionOptions, addStepWaitOptions, exitWith } from "./options.js";
import { durationFlag, parseOptions } from "../arguments/options.js";
import { PlanFlagOptions, SessionOptions, StepWaitOptions, stepWaits } from "../arguments/connect.js";
import { addPolicyOptions, PolicyOptions } from "./policy-options.js";
import { addNotifyOptions, NotifyOptions, notifySettings } from "./notify-options.js";
import { addStatusOptions, StatusOptions, takeStatusFlags } from "./status-options.js";

const ApplyFormat = z.enum(["text", "json"]);

const ApplyOptions = z.object({
  ...SessionOptions.shape,
  ...PlanFlagOptions.shape,
  autoApprove: z._default(z.boolean(), false),
  format: z._default(ApplyFormat, "text"),
  ...StepWaitOptions.shape,
  ...PolicyOptions.shape,
  lockTimeout: z._default(z.string(), "5m"),
  ...NotifyOptions.shape,
  ...StatusOptions.shape,
});

export function register(program: Command, io: CliIo): void {
  const command = program
    .command("apply")
    .description("make the space match the file (or carry out a saved plan)")
    .argument("[plan]", "a plan saved with `cubeform plan --out`; applied exactly, without asking");
  addStatusOptions(
    addNotifyOptions(addPolicyOptions(addPlanFlagOptions(addStepWaitOptions(addSessionOptions(command))), { overrides: true })),
  )
    .option("--auto-approve", "do not ask for confirmation", false)
    .option(
      "--lock-timeout <duration>",
      "how long to wait while another run on this machine applies to the same space (0: do not wait; a bare number: seconds)",
      "5m",
    )
    .addOption(
      new Option("--format <format>", "text, or json: the result as JSON on stdout (progress on stderr)")
        .choices(ApplyFormat.options)
        .default("text"),
    )
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform apply                              # plan, show it, ask "yes" on a terminal
  $ cubeform apply --auto-approve               # in CI
  $ cubeform plan --out plan.json && cubeform apply plan.json
  $ cubeform apply --emulator --auto-approve    # against the embedded local emulator
  $ cubeform apply --auto-approve --repo git@github.com:acme/fleet.git --ref main --ssh-key ~/.ssh/deploy --ssh-known-hosts ~/.ssh/known_hosts
  $ cubeform apply --auto-approve --format json | jq '.outcomes[] | select(.status == "failed")'
  $ cubeform apply --auto-approve --notify https://hooks.slack.com/services/… --notify-format slack

One run at a time applies to a space from this machine: a second one waits for the first
(--lock-timeout). Runs on different machines must be serialized by you (e.g. a CI
concurrency group).

Exit codes: 0 when the space matches the file, 1 when a step failed, a change is blocked
(the reasons are listed) or the space did not converge.`,
    )
    .action(async (planFile: string | undefined, raw: unknown) => {
      const { runApply } = await import("../actions/apply.js");
      const { sessionContext } = await import("../session/repo-source.js");
      const { waitTimeout, pollInterval, lockTimeout, policy, overridePolicy, reason, notify, notifyFormat, notifySecretFile, ...options } =
        parseOptions(ApplyOptions, raw);
      const { flags, rest: parsed } = takeStatusFlags(options);
      const { policyFlags } = await import("../session/policy.js");
      const waits = {
        ...stepWaits({ waitTimeout, pollInterval }),
        lockTimeoutMs: durationFlag(lockTimeout, "--lock-timeout", "s", { zero: true }),
      };
      const context = {
        ...(await sessionContext(parsed, raw, io)),
        ...waits,
        policy: policyFlags({ policy, overridePolicy, reason }, io.env, cwdOf(io)),
        notify: await notifySettings({ notify, notifyFormat, notifySecretFile }, io),
      };
      const { statusSettings } = await import("../commit-status/index.js");
      const commitStatus = statusSettings(flags, parsed.repo, cwdOf(io), io.env);
      if (commitStatus !== undefined && planFile !== undefined)
        throw new CliError(
          "invalid_option",
          "--status-provider posts on the commit apply loads from --repo; a saved plan is applied without --repo",
        );
      exitWith(
        await runApply({ ...context, ...(planFile !== undefined ? { planFile } : {}), ...(commitStatus ? { commitStatus } : {}) }, io),
      );
    });
}
