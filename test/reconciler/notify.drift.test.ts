/** Issue 35 item 3: each drift is told once per fingerprint until repaired or changed; a resource that keeps drifting is summarised once. */
import { describe, expect, test } from "vitest";
import type { ResourceChange } from "../../engine/index.js";
import { driftEntry, DriftTracker } from "../../reconciler/notify/drift.js";

function stopped(name: string, power = "stopped"): ResourceChange {
  return {
    address: `cube/${name}`,
    kind: "cube",
    cubeName: name,
    id: `cube_${name}`,
    action: "update",
    changes: [{ path: "power", before: power, after: "running", forcesReplace: false }],
  };
}

const none = new Set<string>();
const MIN = 60_000;

describe("DriftTracker", () => {
  test("a drift seen every round is detected once, repaired once; the same drift after its repair is detected again", () => {
    const tracker = new DriftTracker();
    const drift = [driftEntry(stopped("a")), driftEntry(stopped("b"))];
    expect(tracker.observe(drift, none, 0).detected.map((e) => e.address)).toEqual(["cube/a", "cube/b"]);
    for (let round = 1; round <= 10; round++)
      expect(tracker.observe(drift, none, round * MIN)).toEqual({ detected: [], repaired: [], flapping: [] });
    const repaired = tracker.observe(drift, new Set(["cube/a", "cube/b"]), 11 * MIN);
    expect(repaired.detected).toEqual([]);
    expect(repaired.repaired.map((e) => [e.address, e.by])).toEqual([
      ["cube/a", "cubeform"],
      ["cube/b", "cubeform"],
    ]);
    expect(tracker.observe([], none, 12 * MIN)).toEqual({ detected: [], repaired: [], flapping: [] });
    expect(tracker.observe([drift[0]!], none, 13 * MIN).detected.map((e) => e.address)).toEqual(["cube/a"]);
  });

  test("what differs makes the fingerprint, not when: a changed value is a new drift; a drift that goes away without a repair is told as such", () => {
    const tracker = new DriftTracker();
    expect(driftEntry(stopped("a")).fingerprint).toBe(driftEntry(stopped("a")).fingerprint);
    expect(driftEntry(stopped("a")).fingerprint).not.toBe(driftEntry(stopped("a", "error")).fingerprint);
    tracker.observe([driftEntry(stopped("a"))], none, 0);
    expect(tracker.observe([driftEntry(stopped("a", "error"))], none, MIN).detected).toHaveLength(1);
    expect(tracker.observe([], none, 2 * MIN).repaired.map((e) => [e.address, e.by])).toEqual([["cube/a", "outside"]]);
  });

  test("a cube repaired then drifting again and again: 2 detections, then one flapping summary, then silence until it has been quiet for the window", () => {
    const tracker = new DriftTracker({ threshold: 3, windowMs: 60 * MIN });
    const a = [driftEntry(stopped("a"))];
    const repairedA = new Set(["cube/a"]);
    const told = { detected: 0, repaired: 0, flapping: 0 };
    for (let i = 0; i < 20; i++) {
      const news = tracker.observe(a, repairedA, i * MIN);
      told.detected += news.detected.length;
      told.repaired += news.repaired.length;
      told.flapping += news.flapping.length;
    }
    expect(told).toEqual({ detected: 2, repaired: 2, flapping: 1 });
    // Quiet for an hour: settled, told again from then on.
    expect(tracker.observe([], none, 90 * MIN).repaired).toEqual([]);
    expect(tracker.observe(a, none, 91 * MIN).detected).toHaveLength(1);
  });

  test("what is kept is bounded: repaired resources with no recent detection are forgotten", () => {
    const tracker = new DriftTracker({ threshold: 3, windowMs: MIN });
    for (let i = 0; i < 1000; i++) tracker.observe([driftEntry(stopped(`c${i}`))], new Set([`cube/c${i}`]), i * 2 * MIN);
    expect((tracker as unknown as { tracked: Map<string, unknown> }).tracked.size).toBeLessThanOrEqual(1);
  });
});
