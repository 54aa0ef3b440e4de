import { expect } from "vitest";
import { waitFor } from "../support/wait.js";
import { editFleet } from "./support/edit.js";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";

test("prune deletes undeclared cubes but leaves a protected one, listing why, and exits 1", async ({ fx }) => {
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  editFleet(fx.cwd, /\n {2}- name: worker[\s\S]*$/, "\n");

  const planned = await fx.cli(["plan", "--prune", ...FAST]);
  expect(planned.exitCode).toBe(2);
  expect(planned.stdout).toMatch(/! cube\/db .*\n {6}blocked: /);

  const r = await fx.cli(["apply", "--prune", "--auto-approve", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stdout).toMatch(/Blocked: cube\/db: .*terminationProtection/);
  // Deletion is asynchronous: the pruned cube passes through "stopping" before it is gone.
  await waitFor(async () => {
    const names = (await fx.api.listCubes()).map((c) => c.name).sort();
    expect(names).toEqual(["db", "web"]);
    return true;
  });
});

test("a cube replacement is refused without --allow-replace, and done with it", async ({ fx }) => {
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  const before = (await fx.api.listCubes()).find((c) => c.name === "worker")!;
  editFleet(fx.cwd, "  - name: worker\n", "  - name: worker\n    resources: { vcpu: 2, ramGb: 2, diskGb: 10 }\n");
  fx.emulator.admin.clearRequests();

  const refused = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  expect(refused.exitCode).toBe(1);
  expect(refused.stdout).toMatch(/~ resources:\n {10}~ vcpu: 1 → 2 {2}\(forces replacement\)/);
  expect(refused.stdout).toMatch(/Blocked: cube\/worker: /);
  expect(refused.stdout).toContain("\nNothing can be applied: every change is blocked.\n");
  expect(refused.stdout).not.toContain("Applying:");
  expect(refused.stdout).toContain("Apply finished: 0 steps done, ");
  expect(fx.mutations()).toBe(0);

  const replaced = await fx.cli(["apply", "--auto-approve", "--allow-replace", ...FAST_APPLY]);
  expect(replaced.stderr).toBe("");
  expect(replaced.exitCode).toBe(0);
  const after = (await fx.api.listCubes()).filter((c) => c.name === "worker" && c.state !== "deleted");
  expect(after).toHaveLength(1);
  expect(after[0]!.id).not.toBe(before.id);
  expect(after[0]!.resources.vcpu).toBe(2);
});
