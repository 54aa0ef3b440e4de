/** What `cubeform preview` prints: the preview a PR comment shows (text, JSON, markdown), and the previews listed or removed. Pure. */
import type { PolicyReport } from "../../engine/types.js";
import { escapeMarkdown, escapeText, inlineMarkdown, markdownCode } from "./escape.js";
import { policyMarkdown } from "./policy.js";

export interface PreviewCubeReport {
  name: string;
  id: string;
  state: string;
  /** https:// URLs of its preview domains. */
  urls: string[];
  /** The ssh command line; null when the cube has no host yet. */
  ssh: string | null;
  /** host:port of its published TCP ports. */
  tcp: string[];
}

export interface PreviewUpReport {
  id: string;
  spaceId: string;
  cubes: PreviewCubeReport[];
  /** The preview's monthly cost from the live prices; null when they could not be read. */
  cost: { monthly: number; currency: string; maxMonthly?: number } | null;
  mutationsSent: number;
  /** Whether the space holds the preview as the file describes it. */
  converged: boolean;
  /** Steps that failed or changes that were blocked, one line each. */
  problems: string[];
  /** Cubes of this preview that this run removed (the file no longer declares them). */
  removed: string[];
  /** What the policy rules found on the preview's plan (absent when none applies); a mandatory violation stops `up` before this report. */
  policy?: PolicyReport;
}

export function renderPreviewUpJson(report: PreviewUpReport): string {
  return `${JSON.stringify({ formatVersion: 1, ...report }, null, 2)}\n`;
}

const money = (cost: NonNullable<PreviewUpReport["cost"]>): string =>
  `${cost.monthly.toFixed(2)} ${cost.currency}/month${cost.maxMonthly === undefined ? "" : ` (at most ${cost.maxMonthly})`}`;

export function renderPreviewUpText(report: PreviewUpReport): string {
  const lines = [""];
  lines.push(...report.problems.map(escapeText));
  lines.push(
    escapeText(
      `Preview ${report.id} in space ${report.spaceId}: ${report.cubes.length} ${report.cubes.length === 1 ? "cube" : "cubes"}${report.converged ? "" : " (not converged: run preview up again)"}; ${report.mutationsSent} API ${report.mutationsSent === 1 ? "mutation" : "mutations"} sent.`,
    ),
  );
  if (report.removed.length > 0) lines.push(escapeText(`Removed (no longer in the file): ${report.removed.join(", ")}`));
  lines.push(`Cost: ${report.cost === null ? "unknown (the prices could not be read)" : escapeText(money(report.cost))}`);
  for (const cube of report.cubes) {
    lines.push(escapeText(`${cube.name} (${cube.state})`));
    for (const url of cube.urls) lines.push(`  url: ${escapeText(url)}`);
    lines.push(`  ssh: ${cube.ssh === null ? "no host yet" : escapeText(cube.ssh)}`);
    for (const address of cube.tcp) lines.push(`  tcp: ${escapeText(address)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** A pull request comment: a heading the CI job can find again to edit the comment in place, then a table per cube. */
export function renderPreviewUpMarkdown(report: PreviewUpReport): string {
  const lines = [`<!-- cubeform-preview:${report.id} -->`, `### Preview \`${report.id}\`${report.converged ? "" : " (not converged)"}`, ""];
  lines.push(
    `Space ${markdownCode(report.spaceId)} · cost ${report.cost === null ? "unknown" : inlineMarkdown(money(report.cost))} · ${report.mutationsSent} API mutations`,
    "",
  );
  for (const problem of report.problems) lines.push(`- :warning: ${escapeMarkdown(problem)}`);
  if (report.problems.length > 0) lines.push("");
  lines.push(...policyMarkdown(report));
  lines.push("| Cube | URL | SSH |", "| --- | --- | --- |");
  for (const cube of report.cubes) {
    const urls = cube.urls.map(markdownLink).join("<br>") || "–";
    lines.push(`| ${escapeMarkdown(cube.name)} | ${urls} | ${cube.ssh === null ? "no host yet" : markdownCode(cube.ssh)} |`);
  }
  lines.push("", "Removed when the pull request closes (`cubeform preview down`), or by the nightly `cubeform preview sweep`.");
  return `${lines.join("\n")}\n`;
}

/** A link only for a plain https URL of a lowercase hostname (the API's answer is input): anything else is escaped text. */
function markdownLink(url: string): string {
  return /^https:\/\/[a-z0-9.-]+$/.test(url) ? `[${url.slice("https://".length)}](${url})` : escapeMarkdown(url);
}

export interface PreviewListEntry {
  id: string;
  cubes: { name: string; id: string; state: string; protected: boolean }[];
  lastChangedAt: string | null;
}

export function renderPreviewListText(spaceId: string, previews: readonly PreviewListEntry[]): string {
  if (previews.length === 0) return `${escapeText(`No previews in space ${spaceId}.`)}\n`;
  const lines = [escapeText(`Previews in space ${spaceId}:`)];
  for (const preview of previews) {
    const protectedCount = preview.cubes.filter((c) => c.protected).length;
    lines.push(
      escapeText(
        `  ${preview.id.padEnd(10)} ${preview.cubes.length} ${preview.cubes.length === 1 ? "cube " : "cubes"}  last changed ${preview.lastChangedAt ?? "unknown"}${protectedCount > 0 ? `  (${protectedCount} protected: never removed)` : ""}`,
      ),
    );
    lines.push(escapeText(`             ${preview.cubes.map((c) => c.name).join(", ")}`));
  }
  return `${lines.join("\n")}\n`;
}

export interface PreviewRemovalReport {
  spaceId: string;
  /** The previews this run set out to remove (by id), with their cubes. */
  previews: { id: string; cubes: string[] }[];
  /** Cubes deleted. */
  removed: string[];
  /** Cubes left: protected, or their delete failed; with the reason. */
  kept: { name: string; reason: string }[];
  mutationsSent: number;
  dryRun?: boolean;
}

export function renderRemovalJson(report: PreviewRemovalReport): string {
  return `${JSON.stringify({ formatVersion: 1, ...report }, null, 2)}\n`;
}

export function renderRemovalText(report: PreviewRemovalReport, what: string): string {
  if (report.previews.length === 0) return `${escapeText(`${what}: nothing to remove in space ${report.spaceId}.`)}\n`;
  const lines: string[] = [];
  if (report.dryRun === true) {
    lines.push(escapeText(`${what} would remove, in space ${report.spaceId}:`));
    for (const preview of report.previews) lines.push(escapeText(`  ${preview.id}: ${preview.cubes.join(", ")}`));
    return `${lines.join("\n")}\n`;
  }
  for (const kept of report.kept) lines.push(escapeText(`Kept ${kept.name}: ${kept.reason}`));
  lines.push(
    escapeText(
      `${what}: removed ${report.removed.length} ${report.removed.length === 1 ? "cube" : "cubes"} of ${report.previews.map((p) => p.id).join(", ")} in space ${report.spaceId}; ${report.kept.length} kept; ${report.mutationsSent} API ${report.mutationsSent === 1 ? "mutation" : "mutations"} sent.`,
    ),
  );
  return `${lines.join("\n")}\n`;
}
