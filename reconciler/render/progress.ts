/**
 * Progress of long transfers on stderr: on a terminal one line redrawn in place (bytes, rate, ETA); otherwise plain lines at most every 10 % or 5 s,
 * so logs stay readable.
 */
import { isTty, writeLine, type CliIo } from "../io.js";
import { escapeText } from "./escape.js";

export interface ByteProgress {
  bytes: number;
  total: number | null;
}

export interface ProgressLine {
  update(progress: ByteProgress): void;
  /** Ends the line (a final plain line when not on a terminal). */
  done(progress?: ByteProgress): void;
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(bytes)} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes}m${String(Math.ceil(seconds % 60)).padStart(2, "0")}s`
    : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

/** `label` may hold an API value (a file name): shown escaped, like everything printed. */
export function progressLine(io: CliIo, label: string, now: () => number = Date.now): ProgressLine {
  const shown = escapeText(label);
  const tty = isTty(io.stderr);
  const started = now();
  let first: number | undefined;
  let lastPrinted = -Infinity;
  let lastDecile = -1;
  let last: ByteProgress = { bytes: 0, total: null };
  const describe = (p: ByteProgress): string => {
    const elapsed = (now() - started) / 1000;
    const moved = p.bytes - (first ?? p.bytes);
    const rate = elapsed > 0 ? moved / elapsed : 0;
    const amount =
      p.total === null
        ? formatBytes(p.bytes)
        : `${formatBytes(p.bytes)} / ${formatBytes(p.total)} (${Math.floor((p.bytes / Math.max(p.total, 1)) * 100)}%)`;
    const eta = p.total !== null && rate > 0 ? `  ETA ${formatSeconds((p.total - p.bytes) / rate)}` : "";
    return `${shown}  ${amount}  ${formatBytes(rate)}/s${eta}`;
  };
  return {
    update(p) {
      first ??= p.bytes;
      last = p;
      const t = now();
      if (tty) {
        if (t - lastPrinted < 100) return;
        lastPrinted = t;
        io.stderr.write(`\r\x1b[2K${describe(p)}`);
        return;
      }
      const decile = p.total ? Math.floor((p.bytes / p.total) * 10) : -1;
      if (decile > lastDecile || t - lastPrinted >= 5000) {
        lastDecile = Math.max(decile, lastDecile);
        lastPrinted = t;
        writeLine(io.stderr, describe(p));
      }
    },
    done(p = last) {
      if (tty) io.stderr.write(`\r\x1b[2K${describe(p)}\n`);
      else if (p !== last || p.total === null || p.bytes !== p.total || lastDecile < 10) writeLine(io.stderr, describe(p));
    },
  };
}
