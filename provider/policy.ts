/**
 * Policies in the Pulumi provider (issue 36): the same policy files as the CLI (stack config `cubeform:policy`, else CUBEFORM_POLICY), judged on a
 * Cube's or TcpMapping's inputs at check(): a mandatory violation is a check failure carrying the rule's message, so `pulumi preview` stops on it.
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

/**
 * Check failures for the mandatory rules the inputs break; none while an input the rules read is unknown (preview). The advisory rules they
 * break are warnings through the engine (engine-log.ts), as CrossGuard's advisory policies are.
 */
export async function policyFailures(kind: "Cube" | "TcpMapping", inputs: Props): Promise<CheckFailure[]> {
  const files = policyFiles();
  if (files.length === 0 || containsUnknown(inputs)) return [];
  let rules: SourcedRule[];
  try {
    rules = loadPolicyFiles({ files, cwd: process.cwd() });
  } catch (e) {
    if (e instanceof LoadError) return e.problems.map((p) => ({ property: "", reason: `policy file: ${formatProblem(p)}` }));
    return [{ property: "", reason: `policy file: ${e instanceof Error ? e.message : String(e)}` }];
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
  for (const v of violations.filter((v) => v.enforcement === "advisory"))
    await warnEngine(`${name}: policy ${v.rule} (advisory, ${v.source}): ${v.saw}; fix: ${v.fix}`);
  return violations.filter((v) => v.enforcement === "mandatory").map(failureOf);
}
