import { Option, type Command } from "commander";
import * as z from "zod/mini";
import type { CliIo } from "../io.js";
import { addFormatOption, addPlanFlagOptions, addSessionOptions, exitWith } from "./options.js";
import { FormatOption, parseOptions } from "../arguments/options.js";
import { PlanFlagOptions, SessionOptions } from "../arguments/connect.js";
import { addPolicyOptions, PolicyOptions } from "./policy-options.js";

const PlanOptions = z.object({
  ...SessionOptions.shape,
  ...FormatOption.shape,
  ...PlanFlagOptions.shape,
  out: z.optional(z.string().check(z.minLength(1))),
  failOn: z._default(z.enum(["changes", "blocked", "policy"]), "changes"),
  ...PolicyOptions.shape,
});

export function register(program: Command, io: CliIo): void {
  const command = program.command("plan").description("show what apply would change, without changing anything");
  addPolicyOptions(addPlanFlagOptions(addSessionOptions(addFormatOption(command))), { overrides: true })
    .option("--out <path>", "save the plan (JSON) for `cubeform apply <path>`")
    .addOption(
      new Option(
        "--fail-on <what>",
        "exit 2 on any change (changes), or only on a change apply would refuse (blocked: protected, a replacement not allowed, an ambiguous name, a prune of an empty source, a cost over the budget or unknown with one), or exit 1 on a mandatory policy violation (policy)",
      )
        .choices(["changes", "blocked", "policy"])
        .default("changes"),
    )
    .addHelpText(
      "after",
      `
Examples:
  $ cubeform plan                               # against CUBE_API_KEY's space
  $ cubeform plan --emulator                    # against the embedded local emulator
  $ cubeform plan --target web --target db      # only these cubes
  $ cubeform plan --out plan.json && cubeform apply plan.json
  $ cubeform plan --format markdown > plan.md   # for a PR comment
  $ cubeform plan --repo https://github.com/acme/fleet.git --ref main --path fleet/ --git-token-env GIT_TOKEN
  $ cubeform plan --repo ./fleet-repo --ref v1.4.0   # a local clone (or file://), at a tag
  $ cubeform plan --format github --fail-on blocked   # a pull request's check: changes pass, blocked ones fail
  $ cubeform plan --policy policy.yaml --fail-on policy   # CI: exit 1 on a mandatory policy violation

Exit codes: 0 in sync, 2 changes, 1 error. With --fail-on blocked: 0 in sync or changes apply can
make, 2 when a change is blocked (apply would refuse it), 1 error. With --fail-on policy: 1 when a
mandatory policy rule is violated by the change (not overridden), else 0.`,
    )
    .action(async (raw: unknown) => {
      const { runPlan } = await import("../actions/plan.js");
      const { sessionContext } = await import("../session/repo-source.js");
      const { policy, overridePolicy, reason, ...parsed } = parseOptions(PlanOptions, raw);
      const { policyFlags } = await import("../session/policy.js");
      const { cwdOf } = await import("../io.js");
      exitWith(
        await runPlan(
          { ...(await sessionContext(parsed, raw, io)), policy: policyFlags({ policy, overridePolicy, reason }, io.env, cwdOf(io)) },
          io,
        ),
      );
    });
}
