import { readFileSync, writeFileSync } from "node:fs";
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
  // The changes it carries out, field by field, before they are carried out.
  expect(applied.stdout).toMatch(/\+ cube\/web\/domain\/www\.demo\.example\.com \(create\)\n {6}\+ hostname: "www\.demo\.example\.com"\n {6}\+ port: 8080\n {6}\+ settings:\n {10}\+ responseCompression: true\n[\s\S]*\nApplying the/);
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

test("a file that is not a plan is refused; `apply cubeform.yaml` never advises overwriting cubeform.yaml", async ({ fx }) => {
  const r = await fx.cli(["apply", "cubeform.yaml", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^Error: cubeform\.yaml is a desired-state file, not a saved plan: apply it with `cubeform apply -f cubeform\.yaml`/);
  expect(r.stderr).not.toContain("--out cubeform.yaml");
  expect(fx.mutations()).toBe(0);
});

test("a saved plan edited by hand is refused (its content no longer matches its digest); nothing is sent", async ({ fx }) => {
  await fx.cli(["plan", "--out", "plan.json", ...FAST]);
  const path = join(fx.cwd, "plan.json");
  const saved = JSON.parse(readFileSync(path, "utf8")) as { steps: { op: string; body?: { resources?: { vcpu: number } } }[] };
  const create = saved.steps.find((s) => s.op === "create-cube");
  expect(create?.body?.resources).toBeDefined();
  create!.body!.resources!.vcpu = 64;
  writeFileSync(path, JSON.stringify(saved, null, 2));
  fx.emulator.admin.clearRequests();

  const r = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^Error: refusing to apply plan\.json: its content does not match its digest \(it was edited or damaged after it was saved\).*cubeform plan --out plan\.json\n$/);
  expect(fx.mutations()).toBe(0);
  expect(fx.emulator.admin.requests()).toHaveLength(0);
});
