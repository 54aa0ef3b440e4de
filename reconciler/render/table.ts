/** Plain-text tables and key/value lines (the day-2 commands, dns). */
import { escapeText } from "./escape.js";

/** Columns padded to their widest cell; the last column is not padded. */
export function table(headers: string[], rows: string[][]): string {
  const all = [headers, ...rows.map((row) => row.map(escapeText))];
  const widths = headers.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)));
  return `${all
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}

/** Key/value lines for one object (`show` commands). */
export function details(pairs: [string, string][]): string {
  const width = Math.max(...pairs.map(([key]) => key.length));
  return `${pairs.map(([key, value]) => `${`${key}:`.padEnd(width + 2)}${escapeText(value)}`).join("\n")}\n`;
}
