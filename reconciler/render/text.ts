/** The default, human renderer of plan (unmanaged cubes, changes live → file, summary) and drift (drifted, missing, extra, unmanaged, blocked, DNS). */
import { blockedReason } from "../hints.js";
import type { Plan, PlanGroup, ResourceChange } from "../../engine/types.js";
import { paletteFor, type Palette } from "./colors.js";
import { escapeText as t } from "./escape.js";
import { changeFieldLines, DEFAULT_WIDTH, fieldChangeLines, wrap, type FieldLayout } from "./fields.js";
import type { DomainDnsCheck, DriftReport, RenderContext } from "./types.js";
import { policyLinesUnder, policyTextSection } from "./policy.js";
import {
  ACTION_WORDS,
  rolloutLine,
  costLine,
  driftedChanges,
  hasChanges,
  planFooter,
  symbolOf,
  unmanagedCubes,
  visibleChanges,
} from "./values.js";

export function renderPlanText(plan: Plan, ctx: RenderContext): string {
  const c = paletteFor(ctx.color);
  // No separate drift section: without a state file every in-place change is drift, and the
  // changes already show each field live → file.
  const sections = [
    headerLines(plan),
    unmanagedSection(plan, c),
    changesSection(plan, ctx, c),
    policyTextSection(plan, c),
    summarySection(plan, ctx),
  ];
  return joinSections(sections);
}

export function renderDriftText(report: DriftReport, ctx: RenderContext): string {
  const c = paletteFor(ctx.color);
  const { plan } = report;
  const missing = visibleChanges(plan).filter((ch) => ch.id === null);
  const extra = visibleChanges(plan).filter((ch) => ch.action === "delete" && !ch.unmanaged);
  const sections = [
    headerLines(plan),
    driftSection(plan, ctx, c),
    listSection(`Missing (declared in ${ctx.file}, not in the space):`, missing, (ch) => `  ${c.green("+")} ${t(ch.address)}`),
    listSection(`Not declared (would be removed from their cube):`, extra, (ch) => `  ${c.red("-")} ${t(ch.address)}`),
    unmanagedSection(plan, c),
    blockedSection(plan, c),
    policyTextSection(plan, c),
    dnsSection(report.dns, c),
    hasChanges(plan) ? summarySection(plan, ctx) : wrapped(ctx, `No drift: the space matches ${ctx.file}.`, costLine(plan)),
  ];
  return joinSections(sections);
}

/** The space the plan acts on (a run never leaves it to be guessed), then where a git-sourced desired state came from. */
function headerLines(plan: Plan): string {
  const source = sourceLine(plan);
  return `Space: ${t(plan.spaceId)}${source === "" ? "" : `\n${source}`}`;
}

/** The commit a git-sourced plan was computed from (empty for a file). */
export function sourceLine(plan: Plan): string {
  const source = plan.source;
  return source === undefined ? "" : `Source: ${t(source.repo)} ${t(source.ref)} at commit ${t(source.revision)} (${t(source.path)})`;
}

function driftSection(plan: Plan, ctx: RenderContext, c: Palette): string {
  const drifted = driftedChanges(plan);
  if (drifted.length === 0) return "";
  const lines = [
    c.bold(
      `Drift: ${drifted.length} live ${drifted.length === 1 ? "resource differs" : "resources differ"} from ${t(ctx.file)} (live → file):`,
    ),
  ];
  for (const change of drifted) {
    lines.push(`  ${c.yellow("~")} ${t(change.address)}`);
    lines.push(...fieldChangeLines(change.changes, layoutFor(change, ctx)));
  }
  return lines.join("\n");
}

function unmanagedSection(plan: Plan, c: Palette): string {
  const cubes = unmanagedCubes(plan);
  if (cubes.length === 0) return "";
  const lines = [c.bold(`Unmanaged cubes (in the space, not in the file; deleted only with --prune or prune: true):`)];
  for (const cube of cubes)
    lines.push(
      `  ? ${t(cube.address)}${cube.id ? ` (id ${t(cube.id)})` : ""}${cube.action === "noop" ? "" : cube.blocked ? ` → blocked (${cube.blocked.code === "termination_protected" ? "protected" : "the source declares no cubes"}: not deleted)` : ` → ${ACTION_WORDS[cube.action]}`}`,
    );
  return lines.join("\n");
}

function changesSection(plan: Plan, ctx: RenderContext, c: Palette): string {
  const changes = visibleChanges(plan);
  if (changes.length === 0) return `No changes: the space matches ${t(ctx.file)}.`;
  const lines = [c.bold("Changes:")];
  for (const entry of groupedChanges(plan, changes)) {
    if ("header" in entry) {
      lines.push(...groupHeaderLines(entry.header, c));
      continue;
    }
    const { change, indent } = entry;
    lines.push(`${indent}  ${colorSymbol(change, c)} ${t(change.address)} ${c.dim(`(${ACTION_WORDS[change.action]})`)}`);
    if (change.blocked) lines.push(`${indent}      ${c.red(`blocked: ${t(blockedReason(change.blocked))}`)}`);
    const layout = layoutFor(change, ctx);
    lines.push(...changeFieldLines(change, { ...layout, indent: `${indent}${layout.indent}` }));
    lines.push(...policyLinesUnder(plan, change.address, c));
  }
  return lines.join("\n");
}

type ChangeLine = { change: ResourceChange; indent: string } | { header: PlanGroup };

/** The changes in plan order, each group's members together under the group's header (where its first change is). */
function groupedChanges(plan: Plan, changes: ResourceChange[]): ChangeLine[] {
  if (plan.groups === undefined) return changes.map((change) => ({ change, indent: "" }));
  const byGroup = new Map<string, ResourceChange[]>();
  for (const change of changes) if (change.group !== undefined) byGroup.set(change.group, [...(byGroup.get(change.group) ?? []), change]);
  const lines: ChangeLine[] = [];
  for (const change of changes) {
    if (change.group === undefined) lines.push({ change, indent: "" });
    else if (byGroup.has(change.group)) {
      const header = plan.groups.find((group) => group.name === change.group);
      if (header !== undefined) lines.push({ header });
      lines.push(...(byGroup.get(change.group) ?? []).map((member) => ({ change: member, indent: "  " })));
      byGroup.delete(change.group);
    }
  }
  return lines;
}

/** "cube/web[1..4] (group of 4 replicas; 2 live, 2 replaced)" and its warning or rollout. */
function groupHeaderLines(group: PlanGroup, c: Palette): string[] {
  const scaled = group.live !== group.replicas && group.live > 0 ? `, scaling ${group.live} → ${group.replicas}` : "";
  const lines = [
    `  ${c.bold(t(`cube/${group.name}[1..${group.replicas}]`))} ${c.dim(`(group of ${group.replicas} replicas${scaled}; ${group.replacing} to replace)`)}`,
  ];
  if (group.rollout !== undefined) lines.push(`      ${t(rolloutLine(group.rollout))}`);
  if (group.warning !== undefined) lines.push(`      ${c.yellow(`warning: ${t(group.warning)}`)}`);
  return lines;
}

function blockedSection(plan: Plan, c: Palette): string {
  const blocked = plan.changes.filter((ch) => ch.blocked !== undefined);
  return listSection("Blocked:", blocked, (ch) => `  ${c.red("!")} ${t(ch.address)}: ${t(ch.blocked?.reason ?? "")}`);
}

function dnsSection(checks: DomainDnsCheck[], c: Palette): string {
  const incomplete = checks.filter((check) => !check.complete);
  if (incomplete.length === 0) return "";
  const lines = [c.bold("DNS records not all found (missing = not published yet, unknown = the service could not check):")];
  for (const check of incomplete) {
    lines.push(`  ${t(check.hostname)} (${t(check.address)})${check.error ? `: could not be checked: ${t(check.error)}` : ""}`);
    for (const r of check.records)
      if (r.state !== "found") lines.push(`      ${t(r.state).padEnd(8)} ${t(r.type)} ${t(r.host)} → ${t(r.value)}`);
  }
  const unchecked = checks.filter((check) => check.error !== undefined).length;
  if (unchecked > 0)
    lines.push(`${unchecked} of ${checks.length} domains could not be checked (listed above); run drift again later, or lower --dns-rate.`);
  return lines.join("\n");
}

function summarySection(plan: Plan, ctx: RenderContext): string {
  const { summary, pacing, cost, blocked, overBudget } = planFooter(plan);
  return wrapped(ctx, summary, pacing, cost, blocked, overBudget && `Blocked by the budget: ${overBudget}.`);
}

/** Lines escaped and wrapped to the output's width, the rest of a long one indented. */
function wrapped(ctx: RenderContext, ...lines: (string | undefined)[]): string {
  const width = ctx.width ?? DEFAULT_WIDTH;
  return lines
    .flatMap((line) =>
      line === undefined ? [] : wrap(t(line), width, width - 2).map((part, i) => (i === 0 ? part : `  ${part}`).trimEnd()),
    )
    .join("\n");
}

function colorSymbol(change: ResourceChange, c: Palette): string {
  const symbol = symbolOf(change);
  if (change.blocked) return c.red(symbol);
  return change.action === "create" ? c.green(symbol) : change.action === "update" ? c.yellow(symbol) : c.red(symbol);
}

/** How a change's fields are laid out: under its address, to the output's width, a domain's settings in file order. */
function layoutFor(change: ResourceChange, ctx: RenderContext): FieldLayout {
  const layout: FieldLayout = { width: ctx.width ?? DEFAULT_WIDTH, indent: "      " };
  if (change.kind !== "domain" || ctx.domainKeyOrder === undefined) return layout;
  const hostname = (change.after?.hostname ?? change.before?.hostname) as string | undefined;
  const keyOrder = hostname === undefined ? undefined : ctx.domainKeyOrder(change.cubeName, hostname);
  return keyOrder === undefined ? layout : { ...layout, keyOrder };
}

function listSection(title: string, items: ResourceChange[], line: (change: ResourceChange) => string): string {
  return items.length === 0 ? "" : [title, ...items.map(line)].join("\n");
}

function joinSections(sections: string[]): string {
  return `${sections.filter((s) => s !== "").join("\n\n")}\n`;
}
