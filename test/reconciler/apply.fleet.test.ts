import { expect } from "vitest";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";

test("plan shows the fleet to create (exit 2), apply creates it, then plan and apply find nothing to do", async ({ fx }) => {
  const planned = await fx.cli(["plan", ...FAST]);
  expect(planned.stderr).toBe("");
  expect(planned.exitCode).toBe(2);
  expect(planned.stdout).toContain("+ cube/web ");
  expect(planned.stdout).toContain(
    "Plan: 7 to add, 0 to change, 0 to destroy.\n8 API mutations; within the rate limit (1000/60s), no wait.\n",
  );
  expect(fx.mutations()).toBe(0);

  const applied = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  expect(applied.stderr).toBe("");
  expect(applied.exitCode).toBe(0);
  expect(applied.stdout).toContain("✓ create-cube cube/web");
  expect(applied.stdout).toContain("The space matches the file.");
  // The wildcard domain's records, with the proxy advice.
  expect(applied.stdout).toContain("domain:  *.demo.example.com → port 8080; publish these DNS records");
  expect(applied.stdout).toContain("[DNS only (grey cloud)]");
  expect(applied.stdout).toContain("[may be proxied]");
  const created = fx.mutations();
  expect(created).toBeGreaterThan(0);
  expect(created).toBeLessThanOrEqual(10);

  fx.emulator.admin.clearRequests();
  const again = await fx.cli(["plan", ...FAST]);
  expect(again.exitCode).toBe(0);
  expect(again.stdout).toContain("No changes: the space matches cubeform.yaml.");
  expect(again.stdout).toContain("Plan: 0 to add, 0 to change, 0 to destroy.");
  const reapplied = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  expect(reapplied.exitCode).toBe(0);
  expect(fx.emulator.admin.requests().filter((r) => r.mutating)).toEqual([]);
});
