/**
 * Policies in the Pulumi provider (issue 36): the same policy files as the CLI (stack config `cubeform:policy`, else CUBEFORM_POLICY), judged on a
 * Cube's or TcpMapping's inputs at check() and again at diff(): a mandatory violation is a check failure (a diff error) carrying the rule's
 * message, so `pulumi preview` stops on it; an advisory one is a warning through the engine's log.
 */
import { delimiter } from "node:path";
import { checkCubeInputs, checkPortInputs, type PolicyViolation, type SourcedRule } from "../engine/index.js";
import { loadPolicyFiles, formatProblem, LoadError } from "../desired/index.js";
import { containsUnknown, type CheckFailure } from "./check.js";
import { currentSettings } from "./settings.js";
import { warnEngine } from "./engine-log.js";
import type { Props } from "./values.js";

/** Which input a check is about, for the failure's property. */
const PROPERTY: Record<string, string> = {
  "deny.portsOpenToInternet": "allow",
  "deny.udpPorts": "udp",
  "allowed.images": "image",
  "allowed.regions": "region",
  "max.vcpu": "resources.vcpu",
  "max.ramGb": "resources.ramGb",
  "max.diskGb": "resources.diskGb",
  "require.terminationProtection": "terminationProtection",
};

function policyFiles(): string[] {
  const configured = currentSettings().policy ?? process.env.CUBEFORM_POLICY ?? "";
  return configured
    .split(delimiter)
    .map((f) => f.trim())
    .filter((f) => f !== "");
}

const failureOf = (v: PolicyViolation): CheckFailure => ({
  property: PROPERTY[v.check] ?? "",
  reason: `policy ${v.rule} (mandatory, ${v.source}): ${v.saw}; fix: ${v.fix}`,
});

/** Failures for the mandatory rules the inputs break (or an unreadable policy file), warnings for the advisory ones. */
function verdict(kind: "Cube" | "TcpMapping", inputs: Props): { failures: CheckFailure[]; warnings: string[] } {
  const files = policyFiles();
  if (files.length === 0 || containsUnknown(inputs)) return { failures: [], warnings: [] };
  let rules: SourcedRule[];
  try {
    rules = loadPolicyFiles({ files, cwd: process.cwd() });
  } catch (e) {
    if (e instanceof LoadError)
      return { failures: e.problems.map((p) => ({ property: "", reason: `policy file: ${formatProblem(p)}` })), warnings: [] };
    return { failures: [{ property: "", reason: `policy file: ${e instanceof Error ? e.message : String(e)}` }], warnings: [] };
  }
  const violations =
    kind === "Cube"
      ? checkCubeInputs(rules, inputs as unknown as Parameters<typeof checkCubeInputs>[1])
      : checkPortInputs(rules, {
          cubePort: inputs.cubePort as number,
          udp: (inputs.udp as boolean | undefined) ?? true,
          allow: (inputs.allow as string[] | undefined) ?? [],
        });
  const name = typeof inputs.name === "string" ? `${kind} ${inputs.name}` : kind;
  return {
    failures: violations.filter((v) => v.enforcement === "mandatory").map(failureOf),
    warnings: violations
      .filter((v) => v.enforcement === "advisory")
      .map((v) => `${name}: policy ${v.rule} (advisory, ${v.source}): ${v.saw}; fix: ${v.fix}`),
  };
}

/**
 * Warnings check() sent that the diff() of the same step has not met yet, by message: the engine checks every resource before it diffs it,
 * so a diff whose warning check already sent stays quiet, and a diff alone still warns.
 */
const warnedAtCheck = new Map<string, number>();

/**
 * Check failures for the mandatory rules the inputs break; none while an input the rules read is unknown (preview). The advisory rules they
 * break are warnings through the engine (engine-log.ts), as CrossGuard's advisory policies are.
 */
export async function policyFailures(kind: "Cube" | "TcpMapping", inputs: Props): Promise<CheckFailure[]> {
  const { failures, warnings } = verdict(kind, inputs);
  for (const warning of warnings) {
    warnedAtCheck.set(warning, (warnedAtCheck.get(warning) ?? 0) + 1);
    await warnEngine(warning);
  }
  return failures;
}

/** A mandatory rule the new inputs break fails diff() with the rule's message; an advisory one is a warning, unless check() just sent it. */
export async function refuseByPolicy(kind: "Cube" | "TcpMapping", news: Props): Promise<void> {
  const { failures, warnings } = verdict(kind, news);
  for (const warning of warnings) {
    const pending = warnedAtCheck.get(warning) ?? 0;
    if (pending > 1) warnedAtCheck.set(warning, pending - 1);
    else if (pending === 1) warnedAtCheck.delete(warning);
    else await warnEngine(warning);
  }
  if (failures.length > 0) throw new PolicyRefused(failures.map((f) => f.reason));
}

/** diff() of inputs a mandatory rule refuses: the rules' messages, one a line. */
export class PolicyRefused extends Error {
  readonly code = "policy_violation";
  constructor(readonly reasons: string[]) {
    super(reasons.join("\n"));
    this.name = "PolicyRefused";
  }
}
