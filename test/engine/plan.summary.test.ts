import { describe, expect, test } from "vitest";
import { diff, estimatePacedSeconds } from "../../engine/index.js";
import { desired, observed, spec } from "./fixtures.js";

describe("plan: summary and pacing estimate", () => {
  test.each([
    [0, 0],
    [10, 0],
    [11, 60],
    [20, 60],
    [21, 120],
    [35, 180],
  ])("%i mutations at 10 per minute take at least %i s", (mutations, seconds) => {
    expect(estimatePacedSeconds(mutations, { limit: 10, windowMs: 60_000 })).toBe(seconds);
  });

  test("waits are not mutations; the estimate follows options.rateLimit", () => {
    const cubes = Array.from({ length: 6 }, (_, i) => spec(`c${i}`, { ports: [{ cubePort: 80, udp: true, allow: [] }] }));
    const plan = diff(desired(cubes), observed([]));
    expect(plan.steps).toHaveLength(18);
    expect(plan.summary).toEqual({
      add: 12,
      change: 0,
      destroy: 0,
      replace: 0,
      blocked: 0,
      unmanaged: 0,
      mutations: 12,
      estimatedSeconds: 60,
    });
    expect(diff(desired(cubes), observed([]), { rateLimit: { limit: 5, windowMs: 10_000 } }).summary.estimatedSeconds).toBe(20);
  });
});
