import { Option, type Command } from "commander";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { addConnectOptions, addFileOption, addRepoOptions, addStepWaitOptions, exitWith, shareExamples } from "./options.js";
import { durationFlag, FileOptions, parseOptions, RepoOptions } from "../arguments/options.js";
import { ConnectOptions, StepWaitOptions, stepWaits } from "../arguments/connect.js";
import { addPolicyOptions, PolicyOptions } from "./policy-options.js";

const PreviewFormat = z.enum(["text", "json", "markdown"]);

const PreviewOptions = z.object({
  ...FileOptions.shape,
  ...ConnectOptions.shape,
  ...RepoOptions.shape,
  ...StepWaitOptions.shape,
  format: z._default(PreviewFormat, "text"),
  lockTimeout: z._default(z.string(), "5m"),
  allowUnknownCost: z._default(z.boolean(), false),
  pricingTimeout: z.optional(z.number().check(z.positive())),
});

const IdOption = z.object({ id: z.string().check(z.minLength(1)) });
const SweepOptions = z.object({ keep: z.optional(z.string()), olderThan: z.optional(z.string()), dryRun: z._default(z.boolean(), false) });

function addPreviewOptions(command: Command, formats: readonly string[]): Command {
  return addStepWaitOptions(addRepoOptions(addConnectOptions(addFileOption(command))))
    .addOption(new Option("--format <format>", "text, json, or (up) markdown: the pull request comment").choices(formats).default("text"))
    .option("--lock-timeout <duration>", "how long to wait while another run on this machine changes the same space", "5m");
}

export function register(program: Command, io: CliIo): void {
  const preview = program
    .command("preview")
    .description("a copy of the fleet per pull request: up, down, list, sweep (found again from the API alone)")
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform preview up --id pr-123                     # the file's cubes as NAME-pr-123 (again after a push: updated in place)
  $ cubeform preview up --id pr-123 --format markdown   # the pull request comment: URLs, cost, ssh commands
  $ cubeform preview up --id pr-123 --policy policy.yaml  # checked against the policy rules first (or CUBEFORM_POLICY)
  $ cubeform preview down --id pr-123                   # removes exactly that preview; again: nothing to do, exit 0
  $ cubeform preview list
  $ cubeform preview sweep --keep pr-12,pr-15           # removes every other preview (the open PRs are kept)
  $ cubeform preview sweep --older-than 72h             # removes previews unchanged for 3 days

A preview is known by its names alone: every cube of preview pr-N is named <cube>-pr-N. down, list
and sweep need no file (a CI runner with an empty disk can run them); given one (-f or --repo), the
cubes it declares are never previews, and its preview.space is the space. A protected cube is never
removed. up checks the preview's plan against the policy files (--policy, else CUBEFORM_POLICY) and
the file's policies: before anything is sent: a mandatory violation refuses the preview (nothing is
sent; --override-policy RULE --reason TEXT lets one rule pass), an advisory one is printed. Exit
codes: 0 done (or nothing to do), 1 error, refused (cost above preview.maxMonthly, a mandatory
policy rule) or a cube kept.`,
    );

  const up = addPolicyOptions(
    addPreviewOptions(
      preview.command("up").description("create or update the preview of the file's fleet for one pull request"),
      PreviewFormat.options,
    ),
    { overrides: true },
  )
    .requiredOption("--id <id>", "the preview's id: pr-<number>")
    .option("--allow-unknown-cost", "with preview.maxMonthly set, go ahead when the prices cannot be read", false)
    .addOption(
      new Option("--pricing-timeout <duration>", "how long the prices (GET /pricing) may take")
        .argParser((text: string) => durationFlag(text, "--pricing-timeout", "s"))
        .default(10_000, "10s"),
    );
  up.action(async (raw: unknown) => {
    const { runPreviewUp } = await import("../actions/preview.js");
    const { policyFlags } = await import("../session/policy.js");
    const policy = policyFlags(parseOptions(PolicyOptions, raw), io.env, cwdOf(io));
    exitWith(await runPreviewUp({ ...(await previewContext(raw, io)), id: parseOptions(IdOption, raw).id, policy }, io));
  });

  const down = addPreviewOptions(preview.command("down").description("remove one preview (nothing to do: exit 0)"), [
    "text",
    "json",
  ]).requiredOption("--id <id>", "the preview's id: pr-<number>");
  down.action(async (raw: unknown) => {
    const { runPreviewDown } = await import("../actions/preview.js");
    exitWith(await runPreviewDown({ ...(await previewContext(raw, io)), id: parseOptions(IdOption, raw).id }, io));
  });

  addPreviewOptions(preview.command("list").description("the previews of the space, from the live API"), ["text", "json"]).action(
    async (raw: unknown) => {
      const { runPreviewList } = await import("../actions/preview.js");
      exitWith(await runPreviewList(await previewContext(raw, io), io));
    },
  );

  const sweep = addPreviewOptions(
    preview.command("sweep").description("remove the previews that are not kept (--keep) or are old (--older-than)"),
    ["text", "json"],
  )
    .option("--keep <ids>", 'comma-separated ids to keep (the open pull requests); "" keeps none')
    .option("--older-than <duration>", "only previews no cube of which was created or changed for this long (e.g. 72h)")
    .option("--dry-run", "say what would be removed, remove nothing", false);
  sweep.action(async (raw: unknown) => {
    const { runPreviewSweep } = await import("../actions/preview.js");
    const options = parseOptions(SweepOptions, raw);
    if (options.keep === undefined && options.olderThan === undefined) {
      const { CliError } = await import("../errors.js");
      throw new CliError(
        "invalid_option",
        "preview sweep needs --keep IDS (the open pull requests) or --older-than DURATION: without either it would remove every preview",
      );
    }
    const keep = options.keep
      ?.split(",")
      .map((id) => id.trim())
      .filter((id) => id.length > 0);
    const olderThanMs = options.olderThan === undefined ? undefined : durationFlag(options.olderThan, "--older-than", "s");
    exitWith(
      await runPreviewSweep(
        {
          ...(await previewContext(raw, io)),
          ...(keep ? { keep } : {}),
          ...(olderThanMs === undefined ? {} : { olderThanMs }),
          dryRun: options.dryRun,
        },
        io,
      ),
    );
  });
  shareExamples(preview);
}

async function previewContext(raw: unknown, io: CliIo) {
  const { sessionContext } = await import("../session/repo-source.js");
  const {
    waitTimeout,
    pollInterval,
    lockTimeout,
    allowUnknownCost,
    pricingTimeout,
    format,
    policy: _policy,
    overridePolicy: _overrides,
    reason: _reason,
    ...session
  } = parseOptions(z.looseObject(PreviewOptions.shape), raw) as z.infer<typeof PreviewOptions> & Record<string, unknown>;
  const fileGiven = ((raw as { file?: unknown[] }).file ?? []).length > 0 || session.repo !== undefined;
  const context = await sessionContext({ ...session, target: [] }, raw, io);
  return {
    ...context,
    format,
    fileGiven,
    allowUnknownCost,
    ...(pricingTimeout === undefined ? {} : { pricingTimeout }),
    ...stepWaits({ waitTimeout, pollInterval }),
    lockTimeoutMs: durationFlag(lockTimeout, "--lock-timeout", "s", { zero: true }),
  };
}
