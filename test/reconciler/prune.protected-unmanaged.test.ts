/**
 * A protected cube that the file does not declare, pruned (issue 22 item 9): the plan shows the
 * delete as blocked (not "→ destroy") and advises what exists, `cubeform cube unprotect`, not a
 * line of the file; after it, prune deletes the cube.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { createCubeOutsideTheFile } from "./support/cubes.js";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";

test("pruning an undeclared protected cube: shown blocked, advised `cube unprotect`, then deleted (issue 22 item 9)", async ({ fx }) => {
  // allowEmpty: an empty fleet is meant here (issue 31 item 10: else an empty source never prunes).
  writeFileSync(join(fx.cwd, "cubeform.yaml"), `apiVersion: cubeform/v1\nallowEmpty: true\ncubes: []\n`);
  const old = await createCubeOutsideTheFile(fx, "old", { terminationProtection: true });

  const plan = await fx.cli(["plan", "--prune", ...FAST]);
  expect(plan.exitCode).toBe(2);
  expect(plan.stdout).toContain(`  ? cube/old (id ${old.id}) → blocked (protected: not deleted)\n`);
  expect(plan.stdout).not.toContain("→ destroy");
  expect(plan.stdout).toContain(
    'blocked: cube "old" is not in the file and has terminationProtection on; turn it off first (cubeform cube unprotect old), then prune deletes it',
  );
  expect(plan.stdout).not.toContain("in the file (or");

  const before = fx.mutations();
  const unprotect = await fx.cli(["cube", "unprotect", "old", ...FAST]);
  expect(unprotect.stdout).toBe('Cube "old": termination protection is now off.\n');
  expect((await fx.cli(["cube", "unprotect", "old", ...FAST])).stdout).toBe('Cube "old": termination protection is already off.\n');
  expect(fx.mutations() - before, "one PATCH: the repeat sends nothing").toBe(1);

  const apply = await fx.cli(["apply", "--prune", "--auto-approve", ...FAST_APPLY]);
  expect(apply.exitCode, apply.stderr).toBe(0);
  expect((await fx.api.listCubes()).filter((c) => c.state !== "deleted")).toEqual([]);
});
