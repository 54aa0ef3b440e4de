import { expect } from "vitest";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";

const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMpCyp4nE5zvDqG7tY7k3bq3Vg4m6i1QvXb9cT0w2XhN other@tool";

test("two live cubes with one declared name: plan shows the ambiguity as blocked, apply exits 1 and touches neither", async ({ fx }) => {
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  // Another tool creates a second cube named "worker" (names are not unique in the API).
  await fx.api.createCube(
    { name: "worker", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "other-tool-1" },
  );

  const planned = await fx.cli(["plan", ...FAST]);
  expect(planned.exitCode).toBe(2);
  expect(planned.stdout).toMatch(/! cube\/worker .*\n {6}blocked: 2 live cubes are named "worker"/);

  fx.emulator.admin.clearRequests();
  const applied = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  expect(applied.exitCode).toBe(1);
  expect(applied.stdout).toMatch(/Blocked: cube\/worker: 2 live cubes are named "worker"/);
  expect(fx.mutations()).toBe(0);
});

test("apply --format json: the result on stdout for scripts, progress on stderr", async ({ fx }) => {
  const applied = await fx.cli(["apply", "--auto-approve", "--format", "json", ...FAST_APPLY]);
  expect(applied.exitCode).toBe(0);
  const result = JSON.parse(applied.stdout) as {
    converged: boolean;
    mutationsSent: number;
    outcomes: { op: string; status: string; records?: unknown[] }[];
  };
  expect(result.converged).toBe(true);
  expect(result.mutationsSent).toBe(8);
  expect(result.outcomes.every((o) => o.status === "done")).toBe(true);
  expect(result.outcomes.filter((o) => o.op === "attach-domain").map((o) => o.records?.length)).toEqual([3, 1]);
  expect(applied.stderr).toContain("✓ create-cube cube/web");

  const again = await fx.cli(["apply", "--auto-approve", "--format", "json", ...FAST_APPLY]);
  expect(again.exitCode).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ converged: true, mutationsSent: 0, outcomes: [] });
});
