/** The page's stylesheet, inline (allowed by its hash): system fonts only, light and dark by the reader's setting. */
export const STYLE = `
:root { color-scheme: light dark; --fg: #1d2330; --bg: #f7f8fa; --card: #ffffff; --line: #dde1e8; --muted: #6b7385; --ok: #1f8a4c; --warn: #b7791f; --bad: #c53030; --accent: #3867d6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e7ee; --bg: #14171d; --card: #1c2029; --line: #2d3340; --muted: #9199aa; --ok: #48bb78; --warn: #ecc94b; --bad: #fc8181; --accent: #7f9cf5; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 24px 32px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: baseline; gap: 16px; flex-wrap: wrap; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 15px; margin: 0 0 8px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
h3 { font-size: 13px; margin: 12px 0 4px; color: var(--muted); }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 12px; }
main > .overview { grid-column: 1 / -1; margin: 0; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; overflow-x: auto; }
#rounds, #drift { grid-column: 1 / -1; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th { text-align: left; color: var(--muted); font-weight: 600; border-bottom: 1px solid var(--line); padding: 3px 8px 3px 0; }
td { border-bottom: 1px solid var(--line); padding: 3px 8px 3px 0; vertical-align: top; overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.muted { color: var(--muted); }
.ok { color: var(--ok); }
.warn { color: var(--warn); }
.bad, .error { color: var(--bad); }
tr.bad td { background: color-mix(in srgb, var(--bad) 8%, transparent); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; border: 1px solid currentColor; font-size: 12px; font-weight: 600; }
svg.chart { width: 100%; height: auto; max-height: 180px; display: block; margin-bottom: 8px; }
.chart .bar { fill: var(--accent); opacity: .75; }
.chart .bar.failed { fill: var(--bad); opacity: 1; }
.chart .cross { fill: var(--bad); font: bold 13px system-ui, sans-serif; }
.chart .axis { stroke: var(--line); }
.chart .mutations { fill: none; stroke: var(--warn); stroke-width: 2; }
.chart .legend { fill: var(--muted); font: 11px system-ui, sans-serif; }
svg.rollout { display: block; border-radius: 3px; background: var(--line); }
.rollout .current { fill: var(--ok); }
.rollout .flying { fill: var(--warn); }
.rollout .failed { fill: var(--bad); }
.rollout .waiting { fill: var(--muted); opacity: .5; }
footer { margin-top: 16px; font-size: 12px; }
a { color: var(--accent); }
`;
