/**
 * Pulumi runs resources in parallel: 20 creates through ONE plugin process share one pacer, so
 * an API limited to 10 mutations per second sees them paced and never answers 429.
 */
import { describe, expect, it } from "vitest";
import { cubeInputs, stackForFile, type Stack } from "./support/stack.js";

let stack: Stack;
stackForFile((started) => (stack = started), { emulatorRateLimit: { limit: 10, windowMs: 1000 }, providerRateLimit: "10/1" });

describe("parallel resources", () => {
  it("creates 20 cubes concurrently with zero 429s", async () => {
    stack.emulator.admin.clearRequests();
    const names = Array.from({ length: 20 }, (_, i) => `node-${i}`);
    const created = await Promise.all(names.map((name) => stack.create("Cube", name, cubeInputs(name))));
    expect(new Set(created.map((c) => c.id)).size).toBe(20);
    expect(created.every((c) => c.outs.state === "running")).toBe(true);

    const requests = stack.emulator.admin.requests();
    expect(requests.filter((r) => r.status === 429)).toEqual([]);
    const creates = requests.filter((r) => r.method === "POST" && r.path.endsWith("/cubes"));
    expect(creates).toHaveLength(20);
    expect(creates.every((r) => r.idempotencyKey !== null)).toBe(true);
    // Paced, not merely lucky: the 11th create went out a window after the 1st.
    const times = creates.map((r) => Date.parse(r.at)).sort((a, b) => a - b);
    expect(times[10]! - times[0]!).toBeGreaterThanOrEqual(1000);
  });
});
