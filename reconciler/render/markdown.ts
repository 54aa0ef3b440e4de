/** Markdown for PR comments and GitHub step summaries: one table per resource kind. Every name and value is escaped (escape.ts). */
import { blockedReason } from "../hints.js";
import { shortCommit } from "../../desired/index.js";
import type { FieldChange, Plan, ResourceChange, ResourceKind } from "../../engine/types.js";
import type { DriftReport, RenderContext } from "./types.js";
import { escapeMarkdown, markdownCode } from "./escape.js";
import { policyMarkdown } from "./policy.js";
import { inlineValue } from "./fields.js";
import {
  ACTION_WORDS,
  changedGroups,
  groupAddress,
  groupDescription,
  rolloutLine,
  planFooter,
  symbolOf,
  unmanagedCubes,
  visibleChanges,
} from "./values.js";

const KIND_TITLES: Record<ResourceKind, string> = { cube: "Cubes", domain: "Domains", port: "TCP ports", webhook: "Webhook endpoints" };

export function renderPlanMarkdown(plan: Plan, ctx: RenderContext, title = "cubeform plan"): string {
  const lines = [`### ${title}`, ""];
  const { source } = plan;
  if (source !== undefined)
    lines.push(
      `Source: ${markdownCode(source.repo)} ${markdownCode(source.ref)} at commit ${markdownCode(shortCommit(source.revision))} (${markdownCode(source.path)})`,
      "",
    );
  const changes = visibleChanges(plan).filter((c) => !(c.unmanaged && c.action === "noop"));
  if (changes.length === 0) lines.push(`No changes: the space matches ${markdownCode(ctx.file)}.`, "");
  lines.push(...groupTable(plan));
  for (const kind of Object.keys(KIND_TITLES) as ResourceKind[]) lines.push(...kindTable(kind, changes));
  const unmanaged = unmanagedCubes(plan).filter((c) => c.action === "noop");
  if (unmanaged.length > 0)
    lines.push(`**Unmanaged cubes** (not in the file): ${unmanaged.map((c) => markdownCode(c.cubeName)).join(", ")}`, "");
  lines.push(...policyMarkdown(plan));
  const { summary, pacing, cost, blocked, overBudget } = planFooter(plan);
  lines.push(`**${summary}** ${pacing}`);
  if (cost) lines.push("", escapeMarkdown(cost));
  if (blocked) lines.push("", `:no_entry: ${blocked}`);
  if (overBudget) lines.push("", `:no_entry: Blocked by the budget: ${escapeMarkdown(overBudget)}.`);
  return `${lines.join("\n")}\n`;
}

export function renderDriftMarkdown(report: DriftReport, ctx: RenderContext): string {
  const lines = [renderPlanMarkdown(report.plan, ctx, "cubeform drift").trimEnd()];
  const incomplete = report.dns.filter((d) => !d.complete);
  if (incomplete.length > 0) {
    lines.push("", "#### DNS records not all found", "", "| Domain | Record | State |", "| --- | --- | --- |");
    for (const check of incomplete) {
      for (const r of check.records.filter((r) => r.state !== "found"))
        lines.push(`| ${cell(check.hostname)} | ${cell(`${r.type} ${r.host} → ${r.value}`)} | ${cell(r.state)} |`);
      if (check.error) lines.push(`| ${cell(check.hostname)} | (could not be checked) | ${cell(check.error)} |`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Each group with a change: its header (cube/web[1..4]), what happens to it, and how (its rollout, or the warning without one). */
function groupTable(plan: Plan): string[] {
  const groups = changedGroups(plan);
  if (groups.length === 0) return [];
  const lines = ["#### Groups of replicas", "", "| Group | Change | Rollout |", "| --- | --- | --- |"];
  for (const group of groups) {
    const how =
      group.rollout !== undefined
        ? rolloutLine(group.rollout)
        : group.warning !== undefined
          ? `:warning: ${group.warning}`
          : "no rollout: members change in the plan's usual order";
    lines.push(`| ${markdownCode(groupAddress(group))} | ${cell(groupDescription(group))} | ${cell(how)} |`);
  }
  lines.push("");
  return lines;
}

function kindTable(kind: ResourceKind, changes: ResourceChange[]): string[] {
  const rows = changes.filter((c) => c.kind === kind);
  if (rows.length === 0) return [];
  const lines = [`#### ${KIND_TITLES[kind]}`, "", "| | Address | Action | Details |", "| --- | --- | --- | --- |"];
  for (const c of rows) lines.push(`| \`${symbolOf(c)}\` | ${markdownCode(c.address)} | ${ACTION_WORDS[c.action]} | ${cell(details(c))} |`);
  lines.push("");
  return lines;
}

function details(change: ResourceChange): string {
  // Every field in full: a PR comment is where a reviewer reads what will be sent.
  const fields = change.changes.map((f) => `${f.path}: ${fieldValues(change, f)}${f.forcesReplace ? " (forces replacement)" : ""}`);
  if (change.blocked) fields.unshift(`blocked: ${blockedReason(change.blocked)}`);
  return fields.join("; ");
}

/** A create shows what is sent, a delete what goes; only a change in place or a replacement has a before and an after. */
function fieldValues(change: ResourceChange, field: FieldChange): string {
  if (change.action === "create") return inlineValue(field.after);
  if (change.action === "delete") return inlineValue(field.before);
  return `${inlineValue(field.before)} → ${inlineValue(field.after)}`;
}

const cell = escapeMarkdown;
