/**
 * GitHub Actions output: annotations (warnings for drift, errors for blocked actions) at the cube's line in the YAML, then the text rendering for
 * the log, in which the runner obeys no workflow command.
 */
import { blockedReason } from "../hints.js";
import type { KnownCost, Plan, ResourceChange } from "../../engine/types.js";
import type { FileProblem } from "../errors.js";
import { githubData, githubInertLog, githubProperty } from "./escape.js";
import { renderDriftText, renderPlanText } from "./text.js";
import type { DriftReport, RenderContext } from "./types.js";
import { policyAnnotations } from "./policy.js";
import {
  ACTION_WORDS,
  changedGroups,
  formatValue,
  groupAddress,
  groupDescription,
  overBudgetMessage,
  rolloutLine,
  visibleChanges,
} from "./values.js";

export function renderPlanGithub(plan: Plan, ctx: RenderContext): string {
  return annotations(plan, ctx) + githubInertLog(renderPlanText(plan, { ...ctx, color: false }));
}

export function renderDriftGithub(report: DriftReport, ctx: RenderContext): string {
  const dns = report.dns
    .filter((d) => d.records.some((r) => r.state === "mismatch"))
    .map((d) =>
      annotation(
        "warning",
        { file: ctx.file, ...ctx.cubePositions[d.cubeName] },
        `${d.address}: a DNS record does not match what the domain needs`,
      ),
    );
  return annotations(report.plan, ctx) + dns.join("") + githubInertLog(renderDriftText(report, { ...ctx, color: false }));
}

export function renderProblemsGithub(problems: FileProblem[]): string {
  return problems.map((p) => annotation("error", p.line > 0 ? p : { file: p.file }, p.message)).join("");
}

function annotations(plan: Plan, ctx: RenderContext): string {
  const overBudget = overBudgetMessage(plan);
  // At the cube that adds the most.
  const top = overBudget ? (plan.cost as KnownCost).budget?.top?.[0] : undefined;
  const budget = overBudget
    ? annotation("error", { file: ctx.file, ...(top === undefined ? {} : ctx.cubePositions[top]) }, `Blocked by the budget: ${overBudget}`)
    : "";
  return (
    budget +
    policyAnnotations(plan, ctx, annotation) +
    groupAnnotations(plan, ctx) +
    visibleChanges(plan)
      .map((change) => {
        const where = { file: ctx.file, ...(change.unmanaged ? {} : ctx.cubePositions[change.cubeName]) };
        return change.blocked
          ? annotation("error", where, `${change.address}: ${ACTION_WORDS[change.action]} is blocked: ${blockedReason(change.blocked)}`)
          : annotation("warning", where, describe(change));
      })
      .join("")
  );
}

/** One per group with a change, at its entry: "cube/web[1..4]: group of 4 replicas; 4 to replace; rollout: …" (a warning, or the replace-at-once warning). */
function groupAnnotations(plan: Plan, ctx: RenderContext): string {
  return changedGroups(plan)
    .map((group) => {
      const where = { file: ctx.file, ...(ctx.cubePositions[group.name] ?? ctx.cubePositions[`${group.name}-1`]) };
      const how =
        group.rollout !== undefined ? `; ${rolloutLine(group.rollout)}` : group.warning !== undefined ? `; warning: ${group.warning}` : "";
      return annotation("warning", where, `${groupAddress(group)}: ${groupDescription(group)}${how}`);
    })
    .join("");
}

function describe(change: ResourceChange): string {
  if (change.id === null) return `${change.address}: missing (will be created)`;
  if (change.unmanaged) return `${change.address}: not declared in the file (${ACTION_WORDS[change.action]})`;
  const fields = change.changes.map((f) => `${f.path} ${formatValue(f.before)} → ${formatValue(f.after)}`).join(", ");
  return `${change.address}: drift (${ACTION_WORDS[change.action]})${fields ? `: ${fields}` : ""}`;
}

export function annotation(level: "warning" | "error", where: { file: string; line?: number; col?: number }, message: string): string {
  const props = [`file=${githubProperty(where.file)}`];
  if (where.line) props.push(`line=${where.line}`);
  if (where.col) props.push(`col=${where.col}`);
  return `::${level} ${props.join(",")}::${githubData(message)}\n`;
}
