/**
 * Progress of long transfers (reconciler/render/progress.ts): on a terminal one line redrawn in place
 * with bytes, rate and ETA; off a terminal plain lines, at most one per 10 % or 5 s, so a log
 * of a 1 GiB download is a dozen lines, not thousands of carriage returns.
 */
import { Writable } from "node:stream";
import { describe, expect, test } from "vitest";
import type { CliIo } from "../../reconciler/io.js";
import { formatBytes, progressLine } from "../../reconciler/render/progress.js";

const MIB = 1024 * 1024;

function stderrOf(isTTY: boolean): { io: CliIo; text: () => string } {
  let text = "";
  const stderr = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    }),
    { isTTY },
  );
  const stdout = new Writable({ write: (_c, _e, done) => done() });
  return { io: { stdout, stderr, env: {} }, text: () => text };
}

/** 100 MiB in 1,000 updates of 100 KiB, one every 10 ms of a fake clock (10 s in all). */
function transfer(isTTY: boolean): string {
  const { io, text } = stderrOf(isTTY);
  let clock = 0;
  const progress = progressLine(io, "downloading nightly", () => clock);
  const total = 100 * MIB;
  for (let i = 1; i <= 1000; i++) {
    clock += 10;
    progress.update({ bytes: (i * total) / 1000, total });
  }
  progress.done();
  return text();
}

describe("progress of a transfer", () => {
  test("on a terminal: one line redrawn in place with bytes, percentage, rate and ETA, ended by one newline", () => {
    const out = transfer(true);
    const frames = out.split("\r\x1b[2K").filter(Boolean);
    // Redrawn at most every 100 ms of the 10 s transfer, plus the final frame.
    expect(frames.length).toBeGreaterThan(50);
    expect(frames.length).toBeLessThanOrEqual(102);
    expect(out.match(/\n/g)).toHaveLength(1);
    expect(out.endsWith("\n")).toBe(true);
    expect(frames[Math.floor(frames.length / 2)]).toMatch(
      /^downloading nightly {2}\d+\.\d MiB \/ 100\.0 MiB \(\d+%\) {2}\d+\.\d MiB\/s {2}ETA \d+s$/,
    );
    expect(frames.at(-1)).toMatch(/^downloading nightly {2}100\.0 MiB \/ 100\.0 MiB \(100%\) {2}10\.0 MiB\/s/);
  });

  test("off a terminal: plain lines (no carriage returns or escapes): the first, then one per 10 %", () => {
    const out = transfer(false);
    expect(out).not.toMatch(/[\r\x1b]/);
    const lines = out.trimEnd().split("\n");
    expect(lines.map((l) => /\((\d+)%\)/.exec(l)?.[1])).toEqual(["0", "10", "20", "30", "40", "50", "60", "70", "80", "90", "100"]);
    expect(lines.at(-1)).toMatch(/^downloading nightly {2}100\.0 MiB \/ 100\.0 MiB \(100%\) {2}10\.0 MiB\/s/);
  });

  test("off a terminal, a slow transfer of unknown size still says something every 5 s", () => {
    const { io, text } = stderrOf(false);
    let clock = 0;
    const progress = progressLine(io, "uploading big.cube", () => clock);
    for (let second = 1; second <= 30; second++) {
      clock = second * 1000;
      progress.update({ bytes: second * 1024, total: null });
    }
    progress.done();
    const lines = text().trimEnd().split("\n");
    // The first update, then every 5 s (6 … 26 s), then the last one from done().
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(lines.length).toBeLessThanOrEqual(8);
    // A rate under 1 KiB/s is whole bytes, not "989.8666666666667 B/s".
    expect(lines.at(-1)).toBe("uploading big.cube  30.0 KiB  990 B/s");
  });

  test("sizes are read the way a user reads them", () => {
    expect([
      formatBytes(0),
      formatBytes(1023),
      formatBytes(989.87),
      formatBytes(1536),
      formatBytes(5 * MIB),
      formatBytes(1024 * MIB),
    ]).toEqual(["0 B", "1023 B", "990 B", "1.5 KiB", "5.0 MiB", "1.0 GiB"]);
  });
});
