/**
 * Policies for the CLI (issue 36): which policy files (--policy, else CUBEFORM_POLICY), the overrides asked for, and the refusal of an apply that
 * a mandatory rule stops. The rules are loaded by desired/policy.ts and judged by engine/policy.ts.
 */
import { delimiter, resolve } from "node:path";
import {
  cutRefusedChanges,
  evaluatePolicies,
  policyBlocks,
  type DesiredState,
  type ObservedState,
  type Plan,
  type PolicyOverride,
  type SourcedRule,
} from "../../engine/index.js";
import { combineRules, loadPolicyFiles, POLICY_FILE } from "../../desired/index.js";
import { readRegularText, tryOr } from "../../system/files.js";
import { CliError } from "../errors.js";

/** What plan, apply and watch were told about policies. */
export interface PolicyFlags {
  /** Policy files, as named (relative to cwd). */
  files: string[];
  cwd: string;
  overrides: PolicyOverride[];
}

/** --policy FILE (repeatable), else the files CUBEFORM_POLICY names (separated as PATH is); --override-policy RULE needs --reason. */
export function policyFlags(
  options: { policy?: string[]; overridePolicy?: string[]; reason?: string | undefined },
  env: Record<string, string | undefined>,
  cwd: string,
): PolicyFlags {
  const files =
    options.policy !== undefined && options.policy.length > 0
      ? options.policy
      : (env.CUBEFORM_POLICY ?? "").split(delimiter).filter((f) => f !== "");
  const rules = options.overridePolicy ?? [];
  if (rules.length > 0 && (options.reason === undefined || options.reason.trim() === "")) {
    throw new CliError(
      "invalid_option",
      "--override-policy needs --reason TEXT: say why the rule may pass for this apply (the reason is printed and recorded)",
    );
  }
  if (rules.length === 0 && options.reason !== undefined) throw new CliError("invalid_option", "--reason goes with --override-policy RULE");
  return { files, cwd, overrides: rules.map((rule) => ({ rule, reason: (options.reason as string).trim() })) };
}

/** The rules a plan is checked against: the policy files' and the fleet's own (an error names both places when they clash). */
export function policyRules(flags: PolicyFlags | undefined, desired: DesiredState, source?: { policySources?: string[] }): SourcedRule[] {
  const fromFiles = flags === undefined || flags.files.length === 0 ? [] : loadedOnce(flags);
  return combineRules(fromFiles, {
    ...(desired.policies ? { rules: desired.policies } : {}),
    ...(source?.policySources ? { sources: source.policySources } : {}),
  });
}

/**
 * A run checks its policy files before it connects and judges the plan by them later (a watch: every round): they are parsed and validated
 * again only when their text changed.
 */
const loaded = new WeakMap<PolicyFlags, { texts: string[]; rules: SourcedRule[] }>();
function loadedOnce(flags: PolicyFlags): SourcedRule[] {
  const texts = flags.files.map((file) => tryOr(() => readRegularText(resolve(flags.cwd, file), POLICY_FILE), ""));
  const known = loaded.get(flags);
  if (known?.texts.every((text, i) => text !== "" && text === texts[i])) return known.rules;
  const rules = loadPolicyFiles({ files: flags.files, cwd: flags.cwd });
  loaded.set(flags, { texts, rules });
  return rules;
}

/** The plan's policy report, when any rule applies; an override of a rule that does not exist is an error (a typo would pass silently). */
export function checkPolicies(
  plan: Plan,
  rules: readonly SourcedRule[],
  input: { desired: DesiredState; observed: ObservedState; overrides: readonly PolicyOverride[] },
): void {
  if (rules.length === 0 && input.overrides.length === 0) return;
  const names = new Set(rules.map((r) => r.rule.name));
  const unknown = input.overrides.find((o) => !names.has(o.rule));
  if (unknown !== undefined)
    throw new CliError(
      "invalid_option",
      `--override-policy ${unknown.rule}: no policy rule has that name${rules.length > 0 ? ` (the rules: ${[...names].join(", ")})` : ""}`,
    );
  plan.policy = evaluatePolicies(rules, { desired: input.desired, observed: input.observed, plan, overrides: input.overrides });
}

/**
 * Before any mutation: the changes a mandatory violation refuses, and those that depend on them, are blocked (code policy_violation) and their
 * steps left out; the rest is what apply carries out. When the violations leave nothing to carry out, apply is refused as a whole.
 */
export function withoutRefusedChanges(plan: Plan): Plan {
  if (policyBlocks(plan).length === 0) return plan;
  return cutRefusedChanges(plan).plan;
}

/** Refuses the apply when policy left none of the plan's steps to send. */
export function refuseWhenAllRefused(planned: Plan, cut: Plan): void {
  if (planned.steps.length > 0 && cut.steps.length === 0) refusePolicyViolations(planned);
}

/** Said before a partial apply: how many changes policy refuses (listed under Blocked above), and how to let a rule pass. */
export function refusedLines(plan: Plan): string[] {
  const refused = plan.changes.filter((c) => c.blocked?.code === "policy_violation").length;
  if (refused === 0) return [];
  const rules = [...new Set(policyBlocks(plan).map((v) => v.rule))];
  return [
    `Refused by policy (${rules.join(", ")}): ${refused} ${refused === 1 ? "change is" : "changes are"} not sent (listed under Blocked); the changes that do not depend on them are applied. To let a rule pass for one apply: --override-policy ${rules[0]} --reason TEXT`,
  ];
}

/** Before any mutation: a mandatory violation the change makes stops the whole apply. */
export function refusePolicyViolations(plan: Plan): void {
  const blocking = policyBlocks(plan);
  if (blocking.length === 0) return;
  const rules = [...new Set(blocking.map((v) => v.rule))];
  const first = blocking[0] as (typeof blocking)[number];
  throw new CliError(
    "policy_violation",
    `refusing to apply: ${blocking.length} mandatory policy ${blocking.length === 1 ? "violation" : "violations"} (${rules.join(", ")}), listed above; nothing was sent. ` +
      `First: ${first.address}: ${first.saw}; fix: ${first.fix}. To let a rule pass for this apply: --override-policy ${first.rule} --reason TEXT`,
  );
}

/** Whether a plan is checked at all: policy files, overrides, or rules in the fleet file. */
export const hasPolicies = (flags: PolicyFlags | undefined, desired: DesiredState): boolean =>
  (flags !== undefined && (flags.files.length > 0 || flags.overrides.length > 0)) || (desired.policies?.length ?? 0) > 0;
