/**
 * Every time flag takes a duration (500ms, 30s, 10m, 1h); a bare number keeps the unit the
 * flag took before (seconds for --wait-timeout and --lock-timeout, ms for --poll-interval).
 */
import { describe, expect } from "vitest";
import { durationFlag } from "../../reconciler/arguments/options.js";
import { FAST, test } from "./support/fixtures.js";

describe("time flags", () => {
  test("apply takes durations for --wait-timeout, --poll-interval and --lock-timeout", async ({ fx }) => {
    const run = await fx.cli([
      "apply",
      "--auto-approve",
      ...FAST,
      "--wait-timeout",
      "10m",
      "--poll-interval",
      "20ms",
      "--lock-timeout",
      "1m",
    ]);
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("The space matches the file.");
  });

  test("a bad duration is one line naming the flag and the bare unit, and sends nothing", async ({ fx }) => {
    for (const [flag, unit] of [
      ["--wait-timeout", "seconds"],
      ["--poll-interval", "ms"],
      ["--lock-timeout", "seconds"],
    ] as const) {
      const run = await fx.cli(["apply", "--auto-approve", ...FAST, flag, "10x"]);
      expect(run.exitCode, flag).toBe(1);
      expect(run.stderr).toBe(
        `Error: invalid option ${flag}: expected a duration such as 500ms, 5s, 10m or 1h or a number of ${unit} (got "10x")\n`,
      );
    }
    const watch = await fx.cli(["watch", "--once", ...FAST, "--wait-timeout", "soon"]);
    expect(watch.exitCode).toBe(1);
    expect(watch.stderr).toMatch(/^Error: invalid option --wait-timeout: expected a duration/);
    expect(fx.mutations()).toBe(0);
  });

  test("issue 31 item 20: watch --interval and --wait's --timeout/--interval take a bare number of seconds too, like --wait-timeout", async ({
    fx,
  }) => {
    const watch = await fx.cli(["watch", "--once", ...FAST, "--interval", "30"]);
    expect(watch.stderr).not.toMatch(/invalid option/);
    expect(watch.exitCode).toBe(0);
    const restart = await fx.cli(["cube", "restart", "no-such-cube", ...FAST, "--wait", "--timeout", "30", "--interval", "1"]);
    expect(restart.stderr).not.toMatch(/invalid option/);
    const bad = await fx.cli(["watch", "--once", ...FAST, "--interval", "soon"]);
    expect(bad.stderr).toBe(
      `Error: invalid option --interval: expected a duration such as 500ms, 5s, 10m or 1h or a number of seconds (got "soon")\n`,
    );
  });

  test("help says what a bare number means", async ({ fx }) => {
    const help = (await fx.cli(["apply", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain(
      "--wait-timeout <duration> how long to wait for a cube to reach a state (e.g. 90s, 10m; a bare number: seconds)",
    );
    expect(help).toContain("--poll-interval <duration> how often to poll while waiting (e.g. 500ms, 2s; a bare number: milliseconds)");
    expect(help).toContain("(0: do not wait; a bare number: seconds)");
  });
});

test("a bare number keeps the flag's old unit; 0 only where it means do not wait", () => {
  expect(durationFlag("600", "--wait-timeout", "s")).toBe(600_000);
  expect(durationFlag("2000", "--poll-interval", "ms")).toBe(2000);
  expect(durationFlag("1.5m", "--wait-timeout", "s")).toBe(90_000);
  expect(durationFlag("0", "--lock-timeout", "s", { zero: true })).toBe(0);
  expect(durationFlag("0s", "--lock-timeout", "s", { zero: true })).toBe(0);
  expect(() => durationFlag("0", "--wait-timeout", "s")).toThrow(/--wait-timeout/);
});
