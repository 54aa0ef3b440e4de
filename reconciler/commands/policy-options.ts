/** The policy flags of plan, apply and watch (issue 36): --policy FILE, and for one apply --override-policy RULE --reason TEXT. */
import { Option, type Command } from "commander";
import "../../schema/zod-english.js";
import * as z from "zod/mini";

export const PolicyOptions = z.object({
  policy: z._default(z.array(z.string().check(z.minLength(1))), []),
  overridePolicy: z._default(z.array(z.string().check(z.minLength(1))), []),
  reason: z.optional(z.string()),
});

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function addPolicyOptions(command: Command, options: { overrides: boolean }): Command {
  command.addOption(
    new Option(
      "--policy <file>",
      "check the plan against this policy file's rules (repeatable; default: the files CUBEFORM_POLICY names)",
    ).argParser(collect),
  );
  if (!options.overrides) return command;
  return command
    .addOption(
      new Option(
        "--override-policy <rule>",
        "let this mandatory policy rule pass for this apply (repeatable; needs --reason, which is printed and recorded)",
      ).argParser(collect),
    )
    .option("--reason <text>", "why the overridden rule may pass (with --override-policy)");
}
