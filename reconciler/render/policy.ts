/** How each format shows a plan's policy violations (issue 36): under the resource, with the rule, what it saw and how to fix it. */
import { blocksApply } from "../../engine/light.js";
import type { Plan, PolicyViolation } from "../../engine/types.js";
import type { Palette } from "./colors.js";
import { escapeMarkdown, escapeText as t, markdownCode } from "./escape.js";
import type { RenderContext } from "./types.js";

/** "mandatory, blocks apply", "advisory", "mandatory, already live: a warning", "mandatory, overridden: REASON". */
export function standing(v: PolicyViolation): string {
  if (v.overridden !== undefined) return `${v.enforcement}, overridden: ${v.overridden.reason}`;
  if (v.status === "existing") return `${v.enforcement}, already live and untouched by the change: a warning`;
  return blocksApply(v) ? "mandatory, blocks apply" : v.enforcement;
}

const byAddress = new WeakMap<Plan, Map<string, PolicyViolation[]>>();

function violationsAt(plan: Plan, address: string): PolicyViolation[] {
  const violations = plan.policy?.violations;
  if (violations === undefined || violations.length === 0) return [];
  let map = byAddress.get(plan);
  if (map === undefined) {
    map = new Map();
    for (const v of violations) map.set(v.address, [...(map.get(v.address) ?? []), v]);
    byAddress.set(plan, map);
  }
  return map.get(address) ?? [];
}

function violationLines(v: PolicyViolation, indent: string, c: Palette): string[] {
  const mark = blocksApply(v) ? c.red("✗") : c.yellow("!");
  return [`${indent}${mark} policy ${t(v.rule)} (${t(standing(v))}): ${t(v.saw)}`, `${indent}  fix: ${t(v.fix)}`];
}

/** Under a change in the text plan: its violations. */
export function policyLinesUnder(plan: Plan, address: string, c: Palette): string[] {
  return violationsAt(plan, address).flatMap((v) => violationLines(v, "      ", c));
}

/** Every violation by resource (those of unchanged resources are shown only here), the overrides, and a count. */
export function policyTextSection(plan: Plan, c: Palette): string {
  const report = plan.policy;
  if (report === undefined) return "";
  const lines = [c.bold(`Policy: ${policyCountLine(plan)}`)];
  const addresses = [...new Set(report.violations.map((v) => v.address))];
  for (const address of addresses) {
    lines.push(`  ${t(address)}`);
    for (const v of violationsAt(plan, address)) lines.push(...violationLines(v, "    ", c), `      rule at ${t(v.source)}`);
  }
  for (const o of report.overrides ?? []) lines.push(`  Override: rule ${t(o.rule)} passes for this apply; reason: ${t(o.reason)}`);
  return lines.join("\n");
}

export function policyCountLine(plan: Plan): string {
  const report = plan.policy;
  if (report === undefined) return "";
  const blocking = report.violations.filter(blocksApply).length;
  const others = report.violations.length - blocking;
  const rules = `${report.rules} ${report.rules === 1 ? "rule" : "rules"} checked`;
  if (report.violations.length === 0) return `${rules}, no violation.`;
  const parts = [
    blocking > 0 ? `${blocking} mandatory ${blocking === 1 ? "violation blocks" : "violations block"} apply` : "",
    others > 0 ? `${others} ${others === 1 ? "warning" : "warnings"}` : "",
  ].filter(Boolean);
  return `${rules}: ${parts.join(", ")}.`;
}

/** A markdown table of the violations, for PR comments. */
export function policyMarkdown(plan: Plan): string[] {
  const report = plan.policy;
  if (report === undefined) return [];
  const lines = ["#### Policy", "", escapeMarkdown(policyCountLine(plan)), ""];
  if (report.violations.length > 0) {
    lines.push("| | Resource | Rule | Saw | Fix |", "| --- | --- | --- | --- | --- |");
    for (const v of report.violations) {
      lines.push(
        `| ${blocksApply(v) ? ":no_entry:" : ":warning:"} | ${markdownCode(v.address)} | ${markdownCode(v.rule)} (${escapeMarkdown(standing(v))}) | ${escapeMarkdown(v.saw)} | ${escapeMarkdown(v.fix)} |`,
      );
    }
    lines.push("");
  }
  for (const o of report.overrides ?? [])
    lines.push(`Override: rule ${markdownCode(o.rule)} passes for this apply; reason: ${escapeMarkdown(o.reason)}`, "");
  return lines;
}

/** GitHub annotations: an error per violation that blocks apply, a warning for the others, at the cube's line. */
export function policyAnnotations(
  plan: Plan,
  ctx: RenderContext,
  annotate: (level: "warning" | "error", where: { file: string; line?: number; col?: number }, message: string) => string,
): string {
  return (plan.policy?.violations ?? [])
    .map((v) => {
      const where = { file: ctx.file, ...(v.cubeName === undefined ? {} : ctx.cubePositions[v.cubeName]) };
      return annotate(
        blocksApply(v) ? "error" : "warning",
        where,
        `${v.address}: policy ${v.rule} (${standing(v)}): ${v.saw}; fix: ${v.fix}`,
      );
    })
    .join("");
}
