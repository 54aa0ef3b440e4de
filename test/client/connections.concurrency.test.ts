import { describe, expect, test } from "vitest";
import { useHarness } from "./support/client.js";
import { sampleCube } from "./support/server.js";

const harness = useHarness();

describe("connection reuse", () => {
  test("reads run concurrently, at most 32 (MAX_CONNECTIONS) in flight, over kept-alive connections", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const release: Array<() => void> = [];
    const h = await harness(async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Hold answers until 32 are waiting (or the rest of the batch), so concurrency is observable.
      await new Promise<void>((resolve) => {
        release.push(resolve);
        if (release.length === 32 || h.server.received.length === 80) release.splice(0).forEach((r) => r());
      });
      inFlight--;
      return { body: { cube: sampleCube("c1") } };
    });
    await Promise.all(Array.from({ length: 80 }, () => h.client.getCube("c1")));
    expect(maxInFlight).toBe(32);
    const connections = new Set(h.server.received.map((r) => r.remotePort));
    expect(connections.size).toBe(32);
  });
});
