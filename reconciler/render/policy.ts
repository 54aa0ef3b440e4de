/**
 * How each format shows a plan's policy violations (issue 36): those the change makes under their resource, with the rule, what it saw and how
 * to fix it; those already live and untouched, grouped by rule and what was seen, with the resources (a few shown, all in JSON).
 */
import { blocksApply } from "../../engine/light.js";
import type { ExistingViolations, Plan, PolicyViolation } from "../../engine/types.js";
import type { Palette } from "./colors.js";
import { escapeMarkdown, escapeText as t, markdownCode } from "./escape.js";
import type { RenderContext } from "./types.js";

/** "mandatory, blocks apply", "advisory", "mandatory, overridden: REASON". */
export function standing(v: PolicyViolation): string {
  if (v.overridden !== undefined) return `${v.enforcement}, overridden: ${v.overridden.reason}`;
  return blocksApply(v) ? "mandatory, blocks apply" : v.enforcement;
}

const kept = (g: ExistingViolations): string => `${g.enforcement}, already live and untouched by the change: a warning`;

/** How many addresses of a group text and markdown name; JSON has them all. */
const SHOWN = 5;

function someAddresses(g: ExistingViolations, code: (address: string) => string): string {
  const shown = g.addresses.slice(0, SHOWN).map(code).join(", ");
  const more = g.count - Math.min(g.count, SHOWN);
  return more > 0 ? `${shown} and ${more} more (all in --format json)` : shown;
}

const resources = (n: number): string => `${n} ${n === 1 ? "resource" : "resources"}`;

interface AtAddress {
  made: Map<string, PolicyViolation[]>;
  existing: Map<string, ExistingViolations[]>;
}

const byAddress = new WeakMap<Plan, AtAddress>();

/** Built once per plan, when a renderer first asks: JSON never does. */
function atAddress(plan: Plan): AtAddress {
  let index = byAddress.get(plan);
  if (index !== undefined) return index;
  index = { made: new Map(), existing: new Map() };
  for (const v of plan.policy?.violations ?? []) index.made.set(v.address, [...(index.made.get(v.address) ?? []), v]);
  for (const g of plan.policy?.existing ?? [])
    for (const address of g.addresses) index.existing.set(address, [...(index.existing.get(address) ?? []), g]);
  byAddress.set(plan, index);
  return index;
}

function violationLines(v: PolicyViolation, indent: string, c: Palette): string[] {
  const mark = blocksApply(v) ? c.red("✗") : c.yellow("!");
  return [`${indent}${mark} policy ${t(v.rule)} (${t(standing(v))}): ${t(v.saw)}`, `${indent}  fix: ${t(v.fix)}`];
}

function keptLines(g: ExistingViolations, indent: string, c: Palette): string[] {
  return [`${indent}${c.yellow("!")} policy ${t(g.rule)} (${t(kept(g))}): ${t(g.saw)}`, `${indent}  fix: ${t(g.fix)}`];
}

/** Under a change in the text plan: its violations, made by the change or kept. */
export function policyLinesUnder(plan: Plan, address: string, c: Palette): string[] {
  if (plan.policy === undefined) return [];
  const index = atAddress(plan);
  return [
    ...(index.made.get(address) ?? []).flatMap((v) => violationLines(v, "      ", c)),
    ...(index.existing.get(address) ?? []).flatMap((g) => keptLines(g, "      ", c)),
  ];
}

/** Every violation the change makes by resource, those already live by rule and what was seen (with their resources), the overrides, a count. */
export function policyTextSection(plan: Plan, c: Palette): string {
  const report = plan.policy;
  if (report === undefined) return "";
  const lines = [c.bold(`Policy: ${policyCountLine(plan)}`)];
  const index = atAddress(plan);
  for (const [address, violations] of index.made) {
    lines.push(`  ${t(address)}`);
    for (const v of violations) lines.push(...violationLines(v, "    ", c), `      rule at ${t(v.source)}`);
  }
  for (const g of report.existing ?? []) {
    lines.push(`  ${resources(g.count)}: ${t(someAddresses(g, (a) => a))}`);
    lines.push(...keptLines(g, "    ", c), `      rule at ${t(g.source)}`);
  }
  for (const o of report.overrides ?? []) lines.push(`  Override: rule ${t(o.rule)} passes for this apply; reason: ${t(o.reason)}`);
  return lines.join("\n");
}

export function policyCountLine(plan: Pick<Plan, "policy">): string {
  const report = plan.policy;
  if (report === undefined) return "";
  const blocking = report.violations.filter(blocksApply).length;
  const others = report.violations.length - blocking + (report.existing ?? []).reduce((n, g) => n + g.count, 0);
  const rules = `${report.rules} ${report.rules === 1 ? "rule" : "rules"} checked`;
  if (blocking + others === 0) return `${rules}, no violation.`;
  const parts = [
    blocking > 0 ? `${blocking} mandatory ${blocking === 1 ? "violation blocks" : "violations block"} apply` : "",
    others > 0 ? `${others} ${others === 1 ? "warning" : "warnings"}` : "",
  ].filter(Boolean);
  return `${rules}: ${parts.join(", ")}.`;
}

/** A markdown table of the violations, for PR comments (a plan's, a preview's). */
export function policyMarkdown(plan: Pick<Plan, "policy">): string[] {
  const report = plan.policy;
  if (report === undefined) return [];
  const lines = ["#### Policy", "", escapeMarkdown(policyCountLine(plan)), ""];
  const existing = report.existing ?? [];
  if (report.violations.length > 0 || existing.length > 0) {
    lines.push("| | Resource | Rule | Saw | Fix |", "| --- | --- | --- | --- | --- |");
    for (const v of report.violations) {
      lines.push(
        `| ${blocksApply(v) ? ":no_entry:" : ":warning:"} | ${markdownCode(v.address)} | ${markdownCode(v.rule)} (${escapeMarkdown(standing(v))}) | ${escapeMarkdown(v.saw)} | ${escapeMarkdown(v.fix)} |`,
      );
    }
    for (const g of existing) {
      const where = `${resources(g.count)}: ${someAddresses(g, markdownCode)}`;
      lines.push(
        `| :warning: | ${where} | ${markdownCode(g.rule)} (${escapeMarkdown(kept(g))}) | ${escapeMarkdown(g.saw)} | ${escapeMarkdown(g.fix)} |`,
      );
    }
    lines.push("");
  }
  for (const o of report.overrides ?? [])
    lines.push(`Override: rule ${markdownCode(o.rule)} passes for this apply; reason: ${escapeMarkdown(o.reason)}`, "");
  return lines;
}

/** cube/NAME/… → NAME. */
const cubeNameOf = (address: string): string | undefined => (address.startsWith("cube/") ? address.split("/", 2)[1] : undefined);

/**
 * GitHub annotations: an error per violation that blocks apply, a warning for the others, at the cube's line; one warning per group already
 * live, at its first cube's line.
 */
export function policyAnnotations(
  plan: Plan,
  ctx: RenderContext,
  annotate: (level: "warning" | "error", where: { file: string; line?: number; col?: number }, message: string) => string,
): string {
  const at = (cubeName: string | undefined) => ({ file: ctx.file, ...(cubeName === undefined ? {} : ctx.cubePositions[cubeName]) });
  const made = (plan.policy?.violations ?? []).map((v) =>
    annotate(
      blocksApply(v) ? "error" : "warning",
      at(v.cubeName),
      `${v.address}: policy ${v.rule} (${standing(v)}): ${v.saw}; fix: ${v.fix}`,
    ),
  );
  const existing = (plan.policy?.existing ?? []).map((g) =>
    annotate(
      "warning",
      at(cubeNameOf(g.addresses[0] ?? "")),
      `${resources(g.count)} (${someAddresses(g, (a) => a)}): policy ${g.rule} (${kept(g)}): ${g.saw}; fix: ${g.fix}`,
    ),
  );
  return [...made, ...existing].join("");
}
