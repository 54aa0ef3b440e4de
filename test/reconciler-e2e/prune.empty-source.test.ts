/**
 * Issue 31 item 10: a source that declares no cubes never prunes unless the file says allowEmpty:
 * true; the plan shows the deletes blocked with the reason and how to allow it, apply refuses them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { APPLY, RATE, createPlainCube, cubeNameCounts, describeRun, plainFleet, project } from "./support.js";

const unwrapped = (text: string): string => text.replace(/\n {2,}/g, " ");

test("item 10: cubes: [] with prune: true (or --prune) deletes nothing: blocked in the plan, refused by apply", async () => {
  const p = await project({ "cubeform.yaml": plainFleet("a", "b", "c") });
  expect((await p.run(APPLY)).code).toBe(0);
  const file = join(p.cwd, "cubeform.yaml");
  writeFileSync(file, "apiVersion: cubeform/v1\nprune: true\ncubes: []\n");
  p.emu.admin.clearRequests();

  const plan = await p.run(["plan", ...RATE]);
  expect(plan.code, describeRun(plan)).toBe(2);
  const text = unwrapped(plan.stdout);
  expect(text).toContain("? cube/a (id ");
  expect(text).toContain("→ blocked (the source declares no cubes: not deleted)");
  expect(text).toContain("blocked: the desired state declares no cubes, and an empty source never prunes");
  expect(text).toContain("set allowEmpty: true beside prune: true");
  expect(text).toContain("3 changes are blocked and will not be applied.");
  const json = JSON.parse((await p.run(["plan", ...RATE, "--format", "json"])).stdout) as {
    changes: { address: string; blocked?: { code: string } }[];
  };
  expect(
    json.changes
      .filter((c) => c.blocked?.code === "empty_source")
      .map((c) => c.address)
      .sort(),
  ).toEqual(["cube/a", "cube/b", "cube/c"]);
  expect((await p.run(["plan", ...RATE, "--fail-on", "blocked"])).code).toBe(2);

  const apply = await p.run([...APPLY]);
  expect(apply.code, describeRun(apply)).toBe(1);
  // The flag is the same as the file's prune: true.
  writeFileSync(file, "apiVersion: cubeform/v1\n");
  const flagged = await p.run([...APPLY, "--prune"]);
  expect(flagged.code, describeRun(flagged)).toBe(1);
  expect(unwrapped(flagged.stdout)).toContain("set allowEmpty: true beside prune: true");
  expect(p.mutations()).toBe(0);
  expect(await cubeNameCounts(p.api)).toEqual({ a: 1, b: 1, c: 1 });
});

test("item 10: allowEmpty: true says the empty fleet is meant: prune deletes every cube", async () => {
  const p = await project({ "cubeform.yaml": plainFleet("a", "b") });
  expect((await p.run(APPLY)).code).toBe(0);
  writeFileSync(join(p.cwd, "cubeform.yaml"), "apiVersion: cubeform/v1\nprune: true\nallowEmpty: true\ncubes: []\n");
  const apply = await p.run(APPLY);
  expect(apply.code, describeRun(apply)).toBe(0);
  expect(apply.stdout).toContain("Plan: 0 to add, 0 to change, 2 to destroy.");
  expect(await cubeNameCounts(p.api)).toEqual({});
  // A file that declares cubes prunes the others as before, without allowEmpty.
  writeFileSync(join(p.cwd, "cubeform.yaml"), plainFleet("x"));
  await createPlainCube(p.api, "stray");
  const pruned = await p.run([...APPLY, "--prune"]);
  expect(pruned.code, describeRun(pruned)).toBe(0);
  expect(await cubeNameCounts(p.api)).toEqual({ x: 1 });
});
