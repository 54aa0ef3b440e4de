/** One duration parser and one rate parser for every flag, setting and variable. */
import { describe, expect, test } from "vitest";
import { parseDuration, parseRate, sleep } from "../../system/time.js";

describe("parseDuration", () => {
  test("500ms, 30s, 10m, 1h, decimals; a bare number is seconds unless the setting took another unit before (issue 31 item 20)", () => {
    expect(["500ms", "30s", "10m", "1h", "1.5s"].map((t) => parseDuration(t, "--interval"))).toEqual([
      500, 30_000, 600_000, 3_600_000, 1500,
    ]);
    expect(parseDuration("300", "cubeform:waitTimeout", "s")).toBe(300_000);
    expect(parseDuration("30", "--interval")).toBe(30_000);
    expect(parseDuration("500", "--poll-interval", "ms")).toBe(500);
    for (const bad of ["", "0s", "0", "-1s", "5 minutes", "1d"])
      expect(() => parseDuration(bad, "--interval"), bad).toThrow(
        /--interval: expected a duration such as 500ms, 5s, 10m or 1h or a number of seconds/,
      );
  });
});

describe("parseRate", () => {
  test("N/SECONDS and N/DURATION; anything else is refused naming the flag", () => {
    expect(parseRate("10/60", "--rate-limit")).toEqual({ limit: 10, windowMs: 60_000 });
    expect(parseRate("10/60s", "--rate-limit")).toEqual({ limit: 10, windowMs: 60_000 });
    expect(parseRate("10/1m", "--rate-limit")).toEqual({ limit: 10, windowMs: 60_000 });
    expect(parseRate("5/0.5", "--rate-limit")).toEqual({ limit: 5, windowMs: 500 });
    for (const bad of ["10", "0/60", "ten/60", "10/0", "10/-1", "", "10/1d"]) {
      expect(() => parseRate(bad, "--dns-rate"), bad).toThrow(/^--dns-rate must look like N\/SECONDS/);
    }
  });
});

test("sleep ends at once when its signal aborts", async () => {
  const stop = new AbortController();
  const started = performance.now();
  const slept = sleep(60_000, stop.signal);
  stop.abort();
  await slept;
  expect(performance.now() - started).toBeLessThan(1000);
});
