import { describe, expect, test } from "vitest";
import { useHarness } from "./support/client.js";
import { sampleCube } from "./support/server.js";

const harness = useHarness();

describe("connection reuse", () => {
  test("reads run concurrently, at most 16 in flight, over kept-alive connections", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const release: Array<() => void> = [];
    const h = await harness(async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Hold answers until 16 are waiting (or the rest of the batch), so concurrency is observable.
      await new Promise<void>((resolve) => {
        release.push(resolve);
        if (release.length === 16 || h.server.received.length === 40) release.splice(0).forEach((r) => r());
      });
      inFlight--;
      return { body: { cube: sampleCube("c1") } };
    });
    await Promise.all(Array.from({ length: 40 }, () => h.client.getCube("c1")));
    expect(maxInFlight).toBe(16);
    const connections = new Set(h.server.received.map((r) => r.remotePort));
    expect(connections.size).toBe(16);
  });
});
