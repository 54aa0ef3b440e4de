/**
 * The sections of the status page as HTML, from the /status JSON. The server renders them into the page (it works with JavaScript off), and
 * the page's inline script renders them again from /status every few seconds: script.ts ships THESE functions to the browser as their own
 * source text, so both renderings are one code. Hence the rules of this file: top-level function declarations only, each using only the
 * others and the language's globals (no imports at run time, no module constants), and every text from the status escaped by `esc`.
 */
import type { WatchStatus } from "../metrics/status.js";

/** Every function the page's script needs, in the order they are shipped. */
export const VIEW_FUNCTIONS = [
  esc,
  when,
  shortRev,
  duration,
  money,
  cell,
  row,
  table,
  fact,
  facts,
  section,
  listSection,
  overview,
  outcomeClass,
  renderSections,
  sourceSection,
  spaceSection,
  roundsSection,
  roundsChart,
  changesTable,
  driftSection,
  rolloutsSection,
  rolloutBar,
  pacingSection,
  previewsSection,
  commitStatusesSection,
  notificationsSection,
];

/** Text for HTML text and double-quoted attributes alike. */
export function esc(value: unknown): string {
  const text = String(value ?? "");
  return /[&<>"'`]/.test(text) ? text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`) : text;
}

/** An ISO time as "2026-11-28 12:34:56Z", or "—". */
function when(iso: string | null | undefined): string {
  return iso ? esc(iso.replace("T", " ").replace(/\.\d+Z$/, "Z")) : "—";
}

function shortRev(revision: string | null | undefined): string {
  return revision ? `<code title="${esc(revision)}">${esc(revision.slice(0, 12))}</code>` : "—";
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

function money(amount: number | null | undefined, currency: string | null | undefined): string {
  return amount === null || amount === undefined ? "—" : esc(`${amount.toFixed(2)} ${currency ?? ""}`);
}

/** A cell of already escaped HTML. */
function cell(html: string, cls?: string): string {
  return `<td${cls ? ` class="${esc(cls)}"` : ""}>${html}</td>`;
}

function row(cells: string[], cls?: string): string {
  return `<tr${cls ? ` class="${esc(cls)}"` : ""}>${cells.join("")}</tr>`;
}

function table(headings: string[], rows: string[]): string {
  return (
    "<table><thead><tr>" + headings.map((h) => `<th>${esc(h)}</th>`).join("") + "</tr></thead><tbody>" + rows.join("") + "</tbody></table>"
  );
}

/** One term of a definition list; `html` is already escaped. */
function fact(term: string, html: string, cls?: string): string {
  return `<dt>${esc(term)}</dt><dd${cls ? ` class="${esc(cls)}"` : ""}>${html}</dd>`;
}

function facts(items: string[]): string {
  return `<dl>${items.join("")}</dl>`;
}

function section(id: string, title: string, body: string): string {
  return `<section id="${esc(id)}"><h2>${esc(title)}</h2>${body}</section>`;
}

/** A section with a table of the list's rows; a null list: the feature is not enabled; []: nothing yet. */
function listSection<T>(id: string, title: string, list: T[] | null | undefined, headings: string[], toRow: (item: T) => string): string {
  if (list === null || list === undefined) return section(id, title, '<p class="muted">not enabled</p>');
  return section(id, title, list.length === 0 ? '<p class="muted">none</p>' : table(headings, list.map(toRow)));
}

function outcomeClass(outcome: string): string {
  return outcome === "succeeded" ? "ok" : outcome === "running" || outcome === "stopped" ? "muted" : "bad";
}

/** Everything below the page's header: the server and the script both call this. */
export function renderSections(status: WatchStatus): string {
  return [
    overview(status),
    sourceSection(status),
    spaceSection(status),
    roundsSection(status),
    driftSection(status),
    rolloutsSection(status),
    pacingSection(status),
    previewsSection(status),
    commitStatusesSection(status),
    notificationsSection(status),
  ].join("");
}

/** The answer in one line: live, ready, converged, source loading. */
function overview(status: WatchStatus): string {
  const badge = (ok: boolean, text: string): string => `<span class="badge ${ok ? "ok" : "bad"}">${esc(text)}</span>`;
  const converged = status.space.converged;
  return (
    '<p class="overview">' +
    badge(status.live, status.live ? "live" : "not live") +
    " " +
    badge(status.ready, status.ready ? "ready" : "not ready") +
    " " +
    badge(converged !== false, converged === null ? "not planned yet" : converged ? "converged" : "drift") +
    " " +
    badge(!status.source.failing, status.source.failing ? "source failing" : "source loads") +
    "</p>"
  );
}

function sourceSection(status: WatchStatus): string {
  const s = status.source;
  const items =
    s.kind === "git"
      ? [
          fact("repository", `<code>${esc(s.repo)}</code>`),
          fact("ref", `<code>${esc(s.ref)}</code>`),
          fact("path", `<code>${esc(s.path)}</code>`),
          fact("applied revision", shortRev(s.appliedRevision)),
          fact("fetched revision", shortRev(s.fetchedRevision)),
          fact("last good revision", shortRev(s.lastGoodRevision)),
        ]
      : [fact("files", s.files.map((f) => `<code>${esc(f)}</code>`).join(", "))];
  items.push(fact("last loaded", when(s.lastLoadedAt)));
  items.push(fact("state", s.failing ? `failing since ${when(s.failingSince)}` : "loads", s.failing ? "bad" : "ok"));
  if (s.failing) items.push(fact("why", `<span class="error">${esc(s.error)}</span>`, "bad"));
  return section("source", "Source", facts(items));
}

function spaceSection(status: WatchStatus): string {
  const s = status.space;
  const converged = s.converged === null ? "not planned yet" : s.converged ? "converged" : "not converged";
  const items = [
    fact("space", `<code>${esc(s.id ?? "—")}</code>`),
    fact("mode", s.applying ? "applying changes" : "reporting drift"),
    fact(
      "state",
      esc(converged) +
        (s.pendingChanges ? ` (${esc(s.pendingChanges)} pending${s.blockedChanges ? `, ${esc(s.blockedChanges)} blocked` : ""})` : ""),
      s.converged === false ? "warn" : s.converged ? "ok" : "",
    ),
    fact("cubes", s.cubes === null || s.cubes === undefined ? "—" : esc(s.cubes)),
    fact(
      "cost per month",
      s.cost
        ? money(s.cost.perMonth, s.cost.currency) +
            (s.cost.afterChanges !== s.cost.perMonth ? ` (${money(s.cost.afterChanges, s.cost.currency)} after the pending changes)` : "")
        : s.costUnknown
          ? `unknown: ${esc(s.costUnknown)}`
          : "—",
    ),
    fact(
      "budget",
      s.budget ? money(s.budget.perMonth, s.cost?.currency) + (s.budget.over ? " — over" : "") : "none",
      s.budget?.over ? "bad" : "",
    ),
    fact("last reconciled", when(s.lastReconciledAt)),
  ];
  if (s.error) items.push(fact("error", `<span class="error">${esc(s.error)}</span>`, "bad"));
  return section("space", "Space", facts(items));
}

function roundsSection(status: WatchStatus): string {
  const last = status.lastRound;
  const running =
    last && last.outcome === "running"
      ? '<p class="muted">round ' +
        esc(last.number) +
        " running since " +
        when(last.startedAt) +
        (last.trigger ? ` (${esc(last.trigger)})` : "") +
        "</p>"
      : "";
  const rounds = status.rounds.slice(-20).reverse();
  const rows = rounds.map((r) =>
    row(
      [
        cell(esc(r.number)),
        cell(when(r.startedAt)),
        cell(esc(r.trigger)),
        cell(esc(duration(r.durationMs)), "num"),
        cell(esc(r.drift), "num"),
        cell(esc(r.mutations), "num"),
        cell(shortRev(r.revision)),
        cell(
          esc(r.outcome) + (r.held ? ` (held: ${esc(r.held)})` : "") + (r.error ? `: <span class="error">${esc(r.error)}</span>` : ""),
          outcomeClass(r.outcome),
        ),
      ],
      outcomeClass(r.outcome) === "bad" ? "bad" : "",
    ),
  );
  const body =
    status.rounds.length === 0
      ? '<p class="muted">no round has ended yet</p>'
      : roundsChart(status.rounds) + table(["round", "started", "trigger", "duration", "drift", "mutations", "revision", "result"], rows);
  return section("rounds", "Last rounds", running + body);
}

/** Duration (bars) and mutations (dots) of each round, oldest left; a failed round's bar is red and marked with a cross. */
function roundsChart(rounds: WatchStatus["rounds"]): string {
  const width = 720;
  const height = 140;
  const top = 16;
  const bottom = 20;
  const plot = height - top - bottom;
  const step = width / Math.max(rounds.length, 1);
  const maxMs = Math.max(1, ...rounds.map((r) => r.durationMs));
  const maxMutations = Math.max(1, ...rounds.map((r) => r.mutations));
  let marks = "";
  let points = "";
  rounds.forEach((r, i) => {
    const x = i * step;
    const h = Math.max(1, (r.durationMs / maxMs) * plot);
    const failed = r.outcome === "failed" || r.outcome === "source-failed";
    marks +=
      '<rect class="' +
      (failed ? "bar failed" : "bar") +
      '" x="' +
      (x + step * 0.15).toFixed(1) +
      '" y="' +
      (top + plot - h).toFixed(1) +
      '" width="' +
      Math.max(1, step * 0.7).toFixed(1) +
      '" height="' +
      h.toFixed(1) +
      '"><title>round ' +
      esc(r.number) +
      ": " +
      esc(duration(r.durationMs)) +
      ", " +
      esc(r.mutations) +
      " mutations, " +
      esc(r.outcome) +
      "</title></rect>";
    if (failed) marks += `<text class="cross" x="${(x + step / 2).toFixed(1)}" y="${top - 4}" text-anchor="middle">×</text>`;
    points += `${(points ? " " : "") + (x + step / 2).toFixed(1)},${(top + plot - (r.mutations / maxMutations) * plot).toFixed(1)}`;
  });
  const axis = `<line class="axis" x1="0" y1="${top + plot}" x2="${width}" y2="${top + plot}"/>`;
  const legend =
    '<text class="legend" x="0" y="' +
    (height - 4) +
    '">bars: duration (max ' +
    esc(duration(maxMs)) +
    ") · line: mutations (max " +
    esc(maxMutations) +
    ") · × failed</text>";
  return (
    '<svg class="chart" viewBox="0 0 ' +
    width +
    " " +
    height +
    '" role="img" aria-label="duration and mutations of the last rounds">' +
    axis +
    marks +
    '<polyline class="mutations" points="' +
    points +
    '"/>' +
    legend +
    "</svg>"
  );
}

function changesTable(list: WatchStatus["drift"]): string {
  const rows = list.changes.map((c) =>
    row([
      cell(`<code>${esc(c.address)}</code>`),
      cell(esc(c.action)),
      cell(c.fields.map((f) => `<code>${esc(f)}</code>`).join(", ") || "—"),
      cell(c.blocked ? `<span class="error">${esc(c.blocked)}</span>` : ""),
    ]),
  );
  const more = list.total > list.changes.length ? `<p class="muted">and ${esc(list.total - list.changes.length)} more</p>` : "";
  return table(["resource", "action", "fields", "blocked"], rows) + more;
}

function driftSection(status: WatchStatus): string {
  const drift = status.drift.total === 0 ? '<p class="ok">no drift: the space matches the source</p>' : changesTable(status.drift);
  const r = status.repaired;
  const repaired =
    r.round === null
      ? '<p class="muted">nothing repaired yet</p>'
      : "<p>round " +
        esc(r.round) +
        " at " +
        when(r.at) +
        " repaired " +
        esc(r.total) +
        (r.total === 1 ? " change" : " changes") +
        ":</p>" +
        changesTable(r);
  return section("drift", "Drift", `${drift}<h3>Last repaired</h3>${repaired}`);
}

function rolloutsSection(status: WatchStatus): string {
  if (status.rollouts.length === 0) return section("rollouts", "Rollouts", '<p class="muted">no groups of replicas</p>');
  const rows = status.rollouts.map((g) => {
    const flight = g.inFlight
      ? "batch " +
        esc(g.inFlight.batch) +
        (g.batches ? ` of ${esc(g.batches)}` : "") +
        ": " +
        esc(g.inFlight.phase) +
        " (" +
        g.inFlight.members.map((m) => `<code>${esc(m)}</code>`).join(", ") +
        ")"
      : g.replacing > 0
        ? `${esc(g.replacing)} to replace`
        : "up to date";
    return row([
      cell(`<code>${esc(g.name)}</code>`),
      cell(`${esc(g.live)} / ${esc(g.replicas)}`, "num"),
      cell(rolloutBar(g)),
      cell(
        flight + (g.warning ? ` <span class="error">${esc(g.warning)}</span>` : ""),
        g.inFlight && (g.inFlight.phase === "failed" || g.inFlight.phase === "reverted") ? "bad" : "",
      ),
    ]);
  });
  return section("rollouts", "Rollouts", table(["group", "live / replicas", "members", "batch"], rows));
}

/** One bar per group: members current (green), in the batch under way (amber, red when failed or put back), still to replace (grey). */
function rolloutBar(g: WatchStatus["rollouts"][number]): string {
  const total = Math.max(1, g.replicas);
  const flying = g.inFlight ? g.inFlight.members.length : 0;
  const waiting = Math.max(0, g.replacing - flying);
  const current = Math.max(0, total - flying - waiting);
  const width = 200;
  const part = (n: number): number => (n / total) * width;
  const flightClass = g.inFlight && (g.inFlight.phase === "failed" || g.inFlight.phase === "reverted") ? "seg failed" : "seg flying";
  return (
    '<svg class="rollout" viewBox="0 0 ' +
    width +
    ' 12" width="' +
    width +
    '" height="12" role="img" aria-label="' +
    esc(`${current} current, ${flying} in the batch, ${waiting} to replace`) +
    '">' +
    '<rect class="seg current" x="0" y="0" width="' +
    part(current).toFixed(1) +
    '" height="12"/>' +
    '<rect class="' +
    flightClass +
    '" x="' +
    part(current).toFixed(1) +
    '" y="0" width="' +
    part(flying).toFixed(1) +
    '" height="12"/>' +
    '<rect class="seg waiting" x="' +
    part(current + flying).toFixed(1) +
    '" y="0" width="' +
    part(waiting).toFixed(1) +
    '" height="12"/></svg>'
  );
}

function pacingSection(status: WatchStatus): string {
  const p = status.pacing;
  if (!p) return section("pacing", "Pacing", '<p class="muted">not connected yet</p>');
  const items = [
    fact("mutations left in the window", `${esc(p.left)} of ${esc(p.limit)} per ${esc(duration(p.windowMs))}`, p.left === 0 ? "warn" : ""),
    fact("sent in the last window", esc(p.used)),
    fact("waiting for a slot", esc(p.waiting)),
  ];
  return section("pacing", "Pacing", facts(items));
}

function previewsSection(status: WatchStatus): string {
  return listSection("previews", "Previews", status.previews, ["id", "ref", "age", "cubes", "cost per month", "url"], (p) =>
    row([
      cell(`<code>${esc(p.id)}</code>`),
      cell(p.ref ? `<code>${esc(p.ref)}</code>` : "—"),
      cell(`since ${when(p.createdAt)}`),
      cell(p.cubes === null ? "—" : esc(p.cubes), "num"),
      cell(money(p.costPerMonth, p.currency), "num"),
      cell(p.url ? `<code>${esc(p.url)}</code>` : "—"),
    ]),
  );
}

function commitStatusesSection(status: WatchStatus): string {
  const headings = ["at", "revision", "state", "target", "description"];
  return listSection("commit-statuses", "Commit statuses", status.commitStatuses, headings, (c) =>
    row(
      [
        cell(when(c.at)),
        cell(shortRev(c.revision)),
        cell(esc(c.state)),
        cell(esc(c.target)),
        cell(esc(c.description ?? "") + (c.error ? ` <span class="error">${esc(c.error)}</span>` : "")),
      ],
      c.error ? "bad" : "",
    ),
  );
}

function notificationsSection(status: WatchStatus): string {
  return listSection("notifications", "Notifications", status.notifications, ["at", "channel", "event", "result"], (n) =>
    row(
      [
        cell(when(n.at)),
        cell(esc(n.channel)),
        cell(esc(n.event)),
        cell(n.ok ? "sent" : `<span class="error">${esc(n.error ?? "failed")}</span>`),
      ],
      n.ok ? "" : "bad",
    ),
  );
}
