/** Issue 36 item 2: the maximum monthly cost per group of replicas (`replicas: N`), mandatory and advisory, judged on the plan. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";
import { HEADER, policyFile, type Violation } from "./support/policy.js";

const FLEET = `${HEADER}cubes:\n  - name: a\n    replicas: 2\n  - name: b\n    replicas: 2\n`;
const RULES = policyFile(
  `- name: strict\n  enforcement: mandatory\n  match: { groups: ["a"] }\n  max: { monthlyCostPerGroup: 3 }`,
  `- name: gentle\n  enforcement: advisory\n  match: { groups: ["b"] }\n  max: { monthlyCostPerGroup: 3 }`,
);

test("max.monthlyCostPerGroup: a group whose members cost more together is a violation at group/NAME; mandatory blocks, advisory warns", {
  timeout: 120_000,
}, async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), FLEET);
  writeFileSync(join(fx.cwd, "policy.yaml"), RULES);
  const r = await fx.cli(["plan", "--policy", "policy.yaml", "--format", "json", "--fail-on", "policy", ...FAST]);
  expect(r.exitCode, r.stderr).toBe(1);
  const { policy } = JSON.parse(r.stdout) as { policy: { violations: Violation[] } };
  expect(policy.violations).toEqual([
    expect.objectContaining({
      rule: "strict",
      enforcement: "mandatory",
      check: "max.monthlyCostPerGroup",
      address: "group/a",
      saw: expect.stringMatching(/^group a \(2 members\) costs \d+\.\d\d a month, over the maximum of 3\.00$/),
    }),
    expect.objectContaining({
      rule: "gentle",
      enforcement: "advisory",
      check: "max.monthlyCostPerGroup",
      address: "group/b",
    }),
  ]);

  // apply refuses group a (its members are not created) and creates group b's.
  const applied = await fx.cli(["apply", "--auto-approve", "--policy", "policy.yaml", ...FAST_APPLY]);
  expect(applied.exitCode, applied.stderr).toBe(1);
  expect((await fx.api.listCubes()).map((c) => c.name).sort()).toEqual(["b-1", "b-2"]);

  // Unchanged, an over-cost group already live is a warning only.
  writeFileSync(
    join(fx.cwd, "policy.yaml"),
    policyFile(`- name: strict\n  enforcement: mandatory\n  match: { groups: ["b"] }\n  max: { monthlyCostPerGroup: 3 }`),
  );
  writeFileSync(join(fx.cwd, "cubeform.yaml"), `${HEADER}cubes:\n  - name: b\n    replicas: 2\n`);
  const again = await fx.cli(["plan", "--policy", "policy.yaml", "--format", "json", "--fail-on", "policy", ...FAST]);
  expect(again.exitCode, again.stderr).toBe(0);
  const kept = (JSON.parse(again.stdout) as { policy: { violations: Violation[]; existing: unknown[] } }).policy;
  expect(kept.violations).toEqual([]);
  expect(kept.existing).toEqual([expect.objectContaining({ rule: "strict", check: "max.monthlyCostPerGroup", addresses: ["group/b"] })]);
});
