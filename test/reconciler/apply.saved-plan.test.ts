import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";

test("plan --out saves the plan; apply plan.json carries it out without asking", async ({ fx }) => {
  const planned = await fx.cli(["plan", "--out", "plan.json", ...FAST]);
  expect(planned.exitCode).toBe(2);
  expect(planned.stdout).toContain("Saved the plan to plan.json.");
  const saved = JSON.parse(readFileSync(join(fx.cwd, "plan.json"), "utf8")) as { formatVersion: number; steps: unknown[] };
  expect(saved.formatVersion).toBe(1);

  const applied = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
  expect(applied.stderr).toBe("");
  expect(applied.exitCode).toBe(0);
  expect(applied.stdout).toContain(`Applying the ${saved.steps.length} steps of plan.json`);
  expect((await fx.cli(["plan", ...FAST])).exitCode).toBe(0);
});

test("a saved plan is refused once the space changed out of band", async ({ fx }) => {
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  await fx.cli(["plan", "--out", "plan.json", ...FAST]);
  const web = (await fx.api.listCubes()).find((c) => c.name === "web");
  await fx.api.setTerminationProtection(web!.id, true);
  fx.emulator.admin.clearRequests();

  const r = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^Error: refusing to apply plan\.json: The plan is stale: .*run `cubeform plan --out plan\.json` again\n$/);
  expect(fx.mutations()).toBe(0);
});

test("a file that is not a plan is refused", async ({ fx }) => {
  const r = await fx.cli(["apply", "cubeform.yaml", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^Error: cubeform\.yaml is not JSON/);
});
