/**
 * GET / of watch's HTTP port: the status page, one HTML document rendered on the server (readable with JavaScript off) with one inline
 * stylesheet and one inline script, both allowed by their hashes in a Content-Security-Policy that allows nothing else but fetching /status
 * from the same origin. No external asset, font or script: it works offline and behind any proxy.
 */
import { createHash } from "node:crypto";
import type { WatchStatus } from "../metrics/status.js";
import { pageScript } from "./script.js";
import { STYLE } from "./style.js";
import { esc, renderSections } from "./view.js";

const sha256 = (text: string): string => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

let built: { script: string; headers: Record<string, string> } | undefined;

/** The page's script and the response headers that allow it (computed once). */
function assets(): { script: string; headers: Record<string, string> } {
  if (built !== undefined) return built;
  const script = pageScript();
  const policy = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(STYLE)}`,
    "img-src data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  built = {
    script,
    headers: {
      "content-security-policy": policy,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-resource-policy": "same-origin",
    },
  };
  return built;
}

/** Headers for the page (and, minus the CSP's meaning, for /status: nosniff and no referrer hold for any answer). */
export function pageHeaders(): Record<string, string> {
  return assets().headers;
}

export function renderPage(status: WatchStatus): string {
  const { script } = assets();
  const title = status.source.kind === "git" ? `${status.source.repo ?? ""} ${status.source.ref ?? ""}` : status.source.files.join(", ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>cubeform watch — ${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>cubeform watch</h1>
<p><span id="stamp" class="muted">rendered ${esc(status.generatedAt.replace("T", " ").replace(/\.\d+Z$/, "Z"))}</span></p>
</header>
<main id="sections">${renderSections(status)}</main>
<footer class="muted">JSON: <a href="status">/status</a> · Prometheus: <a href="metrics">/metrics</a></footer>
<script>${script}</script>
</body>
</html>
`;
}
