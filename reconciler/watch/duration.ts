/** Durations on the command line: "200ms", "5s", "10m", "1h" (decimals allowed, a unit is required). */
import { CliError } from "../errors.js";

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/;

export function parseDuration(text: string, flag: string): number {
  const match = DURATION.exec(text);
  const ms = match ? Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]) : NaN;
  if (!(ms > 0)) throw new CliError("invalid_option", `invalid option ${flag}: expected a duration such as 500ms, 5s, 10m or 1h (got ${JSON.stringify(text)})`);
  return ms;
}

/** "1.5s", "10m", "250ms": the shortest readable spelling, for messages. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${trim(ms / 1000)}s`;
  if (ms < 3_600_000) return `${trim(ms / 60_000)}m`;
  return `${trim(ms / 3_600_000)}h`;
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
