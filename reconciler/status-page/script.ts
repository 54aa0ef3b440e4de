/**
 * The page's only script, inline: the view's functions (view.ts) as their source text, and a loop that fetches /status every few seconds and
 * renders the sections again. It uses no eval and no inline handlers, and sets innerHTML only from those functions, which escape every text.
 * A failed fetch keeps the last rendering and says so in the header.
 */
import { renderSections, VIEW_FUNCTIONS } from "./view.js";

/** How often the page asks /status again. */
export const REFRESH_MS = 5000;

/** Runs in the browser (the project's types know no DOM, hence `any`). */
function refreshLoop(render: (status: any) => string, refreshMs: number): void {
  const doc = (globalThis as any).document;
  const main = doc.getElementById("sections");
  const stamp = doc.getElementById("stamp");
  if (main === null || stamp === null) return;
  const tick = (): void => {
    fetch("status", { headers: { accept: "application/json" }, credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
      .then((status: any) => {
        main.innerHTML = render(status);
        stamp.textContent =
          "updated " +
          String(status.generatedAt)
            .replace("T", " ")
            .replace(/\.\d+Z$/, "Z") +
          " · refreshes every " +
          refreshMs / 1000 +
          " s";
        stamp.className = "muted";
      })
      .catch((error: unknown) => {
        stamp.textContent = `could not refresh (${String(error instanceof Error ? error.message : error)}); showing the last answer`;
        stamp.className = "bad";
      })
      .finally(() => setTimeout(tick, refreshMs));
  };
  setTimeout(tick, refreshMs);
}

/** The script's text (built once: its hash goes in the Content-Security-Policy). Names come from the functions, as a bundler may rename them. */
export function pageScript(refreshMs = REFRESH_MS): string {
  return `"use strict";\n${VIEW_FUNCTIONS.map((fn) => fn.toString()).join("\n")}\n(${refreshLoop.toString()})(${renderSections.name}, ${JSON.stringify(refreshMs)});\n`;
}
