/** `cubeform status` as text: the status page's sections for a terminal. Every text from the answer goes through escapeText. */
import type { WatchStatus } from "../metrics/status.js";
import { escapeText } from "./escape.js";

const short = (revision: string | null): string => (revision === null ? "—" : revision.slice(0, 12));
const time = (iso: string | null): string => (iso === null ? "—" : iso.replace("T", " ").replace(/\.\d+Z$/, "Z"));
const ms = (n: number): string => (n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`);
const money = (amount: number, currency: string | null | undefined): string => `${amount.toFixed(2)} ${currency ?? ""}`.trim();

export function renderStatusText(status: WatchStatus): string {
  const lines = [
    ...overview(status),
    "",
    ...source(status),
    "",
    ...space(status),
    "",
    ...rounds(status),
    "",
    ...drift(status),
    ...rollouts(status),
    ...pacing(status),
    ...features(status),
  ];
  return `${lines.map(escapeText).join("\n")}\n`;
}

function overview(s: WatchStatus): string[] {
  const state = s.space.converged === null ? "not planned yet" : s.space.converged ? "converged" : "drift";
  return [
    `watch: ${s.live ? "live" : "NOT LIVE"}, ${s.ready ? "ready" : "NOT READY"}, ${state}${s.source.failing ? ", source FAILING" : ""} (at ${time(s.generatedAt)})`,
  ];
}

function source(s: WatchStatus): string[] {
  const src = s.source;
  const lines = ["Source"];
  if (src.kind === "git") {
    lines.push(`  ${src.repo ?? ""} (ref ${src.ref ?? "HEAD"}, path ${src.path ?? "."})`);
    lines.push(`  applied ${short(src.appliedRevision)}, fetched ${short(src.fetchedRevision)}, last good ${short(src.lastGoodRevision)}`);
  } else lines.push(`  files: ${src.files.join(", ")}`);
  if (src.failing) lines.push(`  FAILING since ${time(src.failingSince)}: ${src.error ?? ""}`);
  return lines;
}

function space(s: WatchStatus): string[] {
  const sp = s.space;
  const cost = sp.cost
    ? `${money(sp.cost.perMonth, sp.cost.currency)} per month${sp.cost.afterChanges !== sp.cost.perMonth ? ` (${money(sp.cost.afterChanges, sp.cost.currency)} after the pending changes)` : ""}`
    : sp.costUnknown
      ? `cost unknown: ${sp.costUnknown}`
      : "cost —";
  const budget = sp.budget ? `, budget ${money(sp.budget.perMonth, sp.cost?.currency)}${sp.budget.over ? " (OVER)" : ""}` : "";
  const lines = [`Space ${sp.id ?? "—"} (${sp.applying ? "applying" : "reporting drift"})`, `  ${sp.cubes ?? "—"} cubes, ${cost}${budget}`];
  if (sp.pendingChanges)
    lines.push(
      `  ${sp.pendingChanges} ${sp.pendingChanges === 1 ? "change" : "changes"} pending${sp.blockedChanges ? `, ${sp.blockedChanges} blocked` : ""}`,
    );
  lines.push(`  last reconciled ${time(sp.lastReconciledAt)}`);
  if (sp.error) lines.push(`  error: ${sp.error}`);
  return lines;
}

function rounds(s: WatchStatus): string[] {
  const last = s.rounds.slice(-10).reverse();
  const lines = [`Last rounds (${s.rounds.length} kept)`];
  if (s.lastRound?.outcome === "running") lines.push(`  round ${s.lastRound.number} running since ${time(s.lastRound.startedAt)}`);
  for (const r of last) {
    const result = `${r.outcome}${r.held ? ` (held: ${r.held})` : ""}${r.error ? `: ${r.error}` : ""}`;
    lines.push(
      `  #${r.number} ${time(r.startedAt)} ${r.trigger.padEnd(13)} ${ms(r.durationMs).padStart(8)}  drift ${r.drift}, ${r.mutations} mutations  ${short(r.revision)}  ${result}`,
    );
  }
  if (last.length === 0) lines.push("  none ended yet");
  return lines;
}

function drift(s: WatchStatus): string[] {
  const lines = [s.drift.total === 0 ? "Drift: none" : `Drift (${s.drift.total})`];
  for (const c of s.drift.changes)
    lines.push(
      `  ${c.action.padEnd(18)} ${c.address}${c.fields.length ? ` (${c.fields.join(", ")})` : ""}${c.blocked ? ` — blocked: ${c.blocked}` : ""}`,
    );
  if (s.drift.total > s.drift.changes.length) lines.push(`  … and ${s.drift.total - s.drift.changes.length} more`);
  if (s.repaired.round !== null)
    lines.push(
      `Last repaired: round ${s.repaired.round} at ${time(s.repaired.at)}, ${s.repaired.total} ${s.repaired.total === 1 ? "change" : "changes"}`,
    );
  return lines;
}

function rollouts(s: WatchStatus): string[] {
  if (s.rollouts.length === 0) return [];
  return [
    "",
    "Rollouts",
    ...s.rollouts.map(
      (g) =>
        `  ${g.name}: ${g.live}/${g.replicas} live${g.inFlight ? `, batch ${g.inFlight.batch}${g.batches ? ` of ${g.batches}` : ""} ${g.inFlight.phase} (${g.inFlight.members.join(", ")})` : g.replacing ? `, ${g.replacing} to replace` : ", up to date"}`,
    ),
  ];
}

function pacing(s: WatchStatus): string[] {
  return s.pacing === null
    ? []
    : [
        "",
        `Pacing: ${s.pacing.left} of ${s.pacing.limit} mutations left in the window (${ms(s.pacing.windowMs)})${s.pacing.waiting ? `, ${s.pacing.waiting} waiting` : ""}`,
      ];
}

function features(s: WatchStatus): string[] {
  const lines: string[] = [];
  const count = (name: string, list: unknown[] | null): void => {
    if (list !== null) lines.push(`${name}: ${list.length === 0 ? "none" : list.length}`);
  };
  count("Previews", s.previews);
  count("Commit statuses sent", s.commitStatuses);
  count("Notifications sent", s.notifications);
  return lines.length === 0 ? [] : ["", ...lines];
}
