import { describe, expect, test } from "vitest";
import { DEFAULT_CONNECTIONS } from "../../client/http.js";
import { useHarness } from "./support/client.js";
import { sampleCube } from "./support/server.js";

const harness = useHarness();
const TOTAL = 2.5 * DEFAULT_CONNECTIONS;

describe("connection reuse", () => {
  test(`reads run concurrently, at most ${DEFAULT_CONNECTIONS} (DEFAULT_CONNECTIONS) in flight, over kept-alive connections`, async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const release: Array<() => void> = [];
    const h = await harness(async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Hold answers until DEFAULT_CONNECTIONS are waiting (or the rest of the batch), so concurrency is observable.
      await new Promise<void>((resolve) => {
        release.push(resolve);
        if (release.length === DEFAULT_CONNECTIONS || h.server.received.length === TOTAL) release.splice(0).forEach((r) => r());
      });
      inFlight--;
      return { body: { cube: sampleCube("c1") } };
    });
    await Promise.all(Array.from({ length: TOTAL }, () => h.client.getCube("c1")));
    expect(maxInFlight).toBe(DEFAULT_CONNECTIONS);
    const connections = new Set(h.server.received.map((r) => r.remotePort));
    expect(connections.size).toBe(DEFAULT_CONNECTIONS);
  });
});

describe("connection reuse, one request after another", () => {
  test("a read sent when the last one is answered goes over the same connection (undici frees it an event-loop turn later)", async () => {
    const h = await harness(async () => ({ body: { cube: sampleCube("c1") } }));
    for (let i = 0; i < 10; i++) await h.client.getCube("c1");
    const connections = new Set(h.server.received.map((r) => r.remotePort));
    expect(h.server.received).toHaveLength(10);
    expect(connections.size).toBe(1);
  });
});
