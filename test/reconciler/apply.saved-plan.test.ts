import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";

test("plan --out saves the plan; apply plan.json carries it out without asking", async ({ fx }) => {
  const planned = await fx.cli(["plan", "--out", "plan.json", ...FAST]);
  expect(planned.exitCode).toBe(2);
  expect(planned.stdout).toContain("Saved the plan to plan.json.");
  const saved = JSON.parse(readFileSync(join(fx.cwd, "plan.json"), "utf8")) as { formatVersion: number; steps: unknown[] };
  expect(saved.formatVersion).toBe(4);

  const applied = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
  expect(applied.stderr).toBe("");
  expect(applied.exitCode).toBe(0);
  expect(applied.stdout).toContain(`Applying the ${saved.steps.length} ${saved.steps.length === 1 ? "step" : "steps"} of plan.json`);
  // The changes it carries out, field by field, before they are carried out.
  expect(applied.stdout).toMatch(
    /\+ cube\/web\/domain\/www\.demo\.example\.com \(create\)\n {6}\+ hostname: "www\.demo\.example\.com"\n {6}\+ port: 8080\n {6}\+ settings:\n {10}\+ responseCompression: true\n[\s\S]*\nApplying the/,
  );
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
  expect(r.stderr).toMatch(
    /^Error: refusing to apply plan\.json: The plan is stale: the space changed since it was computed \(cube "web": terminationProtection changed from false to true\); run `cubeform plan --out plan\.json` again\n$/,
  );
  expect(fx.mutations()).toBe(0);
});

test("a saved --target plan depends on its cubes and on which others exist, not on the others' state", async ({ fx }) => {
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  const cubes = await fx.api.listCubes();
  const id = (name: string) => cubes.find((c) => c.name === name)!.id;
  await fx.cli(["plan", "--target", "web", "--out", "web.json", ...FAST]);
  await fx.api.setTerminationProtection(id("worker"), true);
  const untargetedChanged = await fx.cli(["apply", "web.json", ...FAST_APPLY]);
  expect(untargetedChanged.stderr).toBe("");
  expect(untargetedChanged.exitCode).toBe(0);

  await fx.cli(["plan", "--target", "web", "--out", "web.json", ...FAST]);
  await fx.api.setTerminationProtection(id("web"), true);
  fx.emulator.admin.clearRequests();
  const targetChanged = await fx.cli(["apply", "web.json", ...FAST_APPLY]);
  expect(targetChanged.exitCode).toBe(1);
  expect(targetChanged.stderr).toContain('cube "web": terminationProtection changed from false to true');
  expect(fx.mutations()).toBe(0);
});

test("a plan saved by a release with another plan format is refused as stale, and nothing is sent", async ({ fx }) => {
  await fx.cli(["plan", "--out", "plan.json", ...FAST]);
  const path = join(fx.cwd, "plan.json");
  const saved = JSON.parse(readFileSync(path, "utf8")) as object;
  // Format 1 named the API's fields in its steps (udpEnabled, whitelistedIps, domain); format 2 listed live policy violations one by
  // one; format 3 was indented (its digest is of that text).
  for (const format of [1, 2, 3]) {
    writeFileSync(path, JSON.stringify({ ...saved, formatVersion: format }));
    fx.emulator.admin.clearRequests();
    const r = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `Error: refusing to apply plan.json: it was saved by another release of cubeform (plan format ${format}; this release applies format 4); make a new plan: cubeform plan --out plan.json\n`,
    );
    expect(fx.mutations()).toBe(0);
  }
});

test("a file that is not a plan is refused; `apply cubeform.yaml` never advises overwriting cubeform.yaml", async ({ fx }) => {
  const r = await fx.cli(["apply", "cubeform.yaml", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(
    /^Error: cubeform\.yaml is a desired-state file, not a saved plan: apply it with `cubeform apply -f cubeform\.yaml`/,
  );
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
  expect(r.stderr).toMatch(
    /^Error: refusing to apply plan\.json: its content does not match its digest \(it was edited or damaged after it was saved\).*cubeform plan --out plan\.json\n$/,
  );
  expect(fx.mutations()).toBe(0);
  expect(fx.emulator.admin.requests()).toHaveLength(0);
});

test("a saved plan whose file now declares something else (label redis → redis-main) is refused, naming the file and the cube; nothing is sent", async ({
  fx,
}) => {
  const yamlPath = join(fx.cwd, "cubeform.yaml");
  const original = readFileSync(yamlPath, "utf8");
  expect((await fx.cli(["plan", "--out", "plan.json", ...FAST])).exitCode).toBe(2);
  writeFileSync(yamlPath, original.replace("label: redis", "label: redis-main"));
  fx.emulator.admin.clearRequests();

  const r = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(
    /^Error: refusing to apply plan\.json: cubeform\.yaml changed \(cube "db" is declared differently\) since the plan was made; make a new plan: cubeform plan --out plan\.json\n$/,
  );
  expect(r.stdout).not.toContain("matches the file");
  expect(fx.emulator.admin.requests()).toHaveLength(0);

  // An edit that declares nothing new (a comment) leaves the plan good.
  writeFileSync(yamlPath, `${original}# reviewed\n`);
  const applied = await fx.cli(["apply", "plan.json", ...FAST_APPLY]);
  expect(applied.exitCode).toBe(0);
  expect(applied.stdout).toContain("(made from cubeform.yaml, unchanged since)");
  expect(applied.stdout).toContain("The space matches the file.");
  expect((await fx.cli(["plan", ...FAST])).exitCode).toBe(0);
});
