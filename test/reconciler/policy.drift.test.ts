/** Issue 36: `drift --policy FILE` (or CUBEFORM_POLICY) reports what the live fleet breaks of the rules, as warnings; drift's exit code stays drift's. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";
import { HEADER, NO_OPEN_PORTS, policyFile } from "./support/policy.js";

const OPEN_WEB = `${HEADER}cubes:\n  - name: web\n    ports: [{ cubePort: 5432, udp: false }]\n`;

test("drift --policy: a live violation is a warning under its resource; in sync exits 0, JSON carries it", { timeout: 120_000 }, async ({
  fx,
}) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), OPEN_WEB);
  writeFileSync(join(fx.cwd, "policy.yaml"), policyFile(NO_OPEN_PORTS));
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  fx.emulator.admin.clearRequests();

  const text = await fx.cli(["drift", "--policy", "policy.yaml", ...FAST]);
  expect(text.exitCode, text.stderr).toBe(0);
  expect(text.stdout).toContain("Policy: 1 rule checked: 1 warning.");
  expect(text.stdout).toContain(
    "! policy no-open-ports (mandatory, already live and untouched by the change: a warning): port 5432 has no allow list",
  );

  const json = await fx.cli(["drift", "-o", "json", ...FAST], { env: { CUBEFORM_POLICY: "policy.yaml" } });
  expect(json.exitCode, json.stderr).toBe(0);
  const report = JSON.parse(json.stdout) as { plan: { policy: { violations: unknown[]; existing: unknown[] } } };
  expect(report.plan.policy.violations).toEqual([]);
  expect(report.plan.policy.existing).toEqual([expect.objectContaining({ count: 1, addresses: ["cube/web/port/5432"] })]);
  expect(fx.mutations()).toBe(0);

  // Without a policy, drift says nothing of policies.
  expect((await fx.cli(["drift", ...FAST])).stdout).not.toContain("Policy:");
  // A broken policy file is located, before anything connects.
  writeFileSync(join(fx.cwd, "bad.yaml"), policyFile("- name: x\n  enforcement: mandatry\n  deny: { udpPorts: true }"));
  const bad = await fx.cli(["drift", "--policy", "bad.yaml", ...FAST]);
  expect(bad.exitCode).toBe(1);
  expect(bad.stderr).toMatch(/bad\.yaml:\d+:\d+: .*mandatry.*did you mean "mandatory"/);
});
