/** Issue 36 item 6: the plan's JSON is a stable format with a JSON Schema (schema/plan.schema.json); plans made by the CLI validate against it. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "vitest";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";
import { HEADER, NO_OPEN_PORTS, policyFile } from "./support/policy.js";

const read = (path: string): string => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), "utf8");
const validatePlan = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(JSON.parse(read("schema/plan.schema.json")) as object);

interface PlanJson {
  changes: { address: string; kind: string; action: string; after?: { cubePort?: number; allow?: string[] } }[];
  [key: string]: unknown;
}

test("plans with creates, replacements, a blocked change, cost and policy violations validate; a damaged one does not", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "policy.yaml"), policyFile(NO_OPEN_PORTS, `- name: small\n  enforcement: advisory\n  max: { vcpu: 1 }`));
  const fleet = `${HEADER}cubes:\n  - name: web\n    ports: [{ cubePort: 5432, udp: false }]\n  - name: db\n    terminationProtection: true\n`;
  writeFileSync(join(fx.cwd, "cubeform.yaml"), fleet);
  const first = JSON.parse(
    (
      await fx.cli([
        "plan",
        "--format",
        "json",
        "--policy",
        "policy.yaml",
        "--override-policy",
        "no-open-ports",
        "--reason",
        "test",
        ...FAST,
      ])
    ).stdout,
  ) as PlanJson;
  expect(validatePlan(first), JSON.stringify(validatePlan.errors)).toBe(true);
  expect(first.policy).toMatchObject({ rules: 2, overrides: [{ rule: "no-open-ports", reason: "test" }] });

  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  // Replacements, one blocked by protection, a cube bigger than the advisory rule allows.
  writeFileSync(
    join(fx.cwd, "cubeform.yaml"),
    fleet
      .replace("  - name: db\n", "  - name: db\n    image: debian-13\n")
      .replace("  - name: web\n", "  - name: web\n    power: stopped\n    resources: { vcpu: 2, ramGb: 1, diskGb: 10 }\n"),
  );
  const second = JSON.parse(
    (await fx.cli(["plan", "--format", "json", "--allow-replace", "--policy", "policy.yaml", ...FAST])).stdout,
  ) as PlanJson;
  expect(validatePlan(second), JSON.stringify(validatePlan.errors)).toBe(true);
  expect(second.changes.map((c) => `${c.address} ${c.action}`)).toEqual([
    "cube/web delete-then-create",
    "cube/web/port/5432 delete-then-create",
    "cube/db delete-then-create",
  ]);
  expect(second.changes.find((c) => c.address === "cube/db")).toMatchObject({ blocked: { code: "termination_protected" } });
  const drift = JSON.parse((await fx.cli(["drift", "--format", "json", ...FAST])).stdout) as { plan: PlanJson };
  expect(validatePlan(drift.plan), JSON.stringify(validatePlan.errors)).toBe(true);

  // In sync: the violations already live are grouped (policy.existing, since formatVersion 4).
  writeFileSync(join(fx.cwd, "cubeform.yaml"), fleet);
  const kept = JSON.parse((await fx.cli(["plan", "--format", "json", "--policy", "policy.yaml", ...FAST])).stdout) as PlanJson & {
    policy: { violations: unknown[]; existing: { addresses: string[]; count: number }[] };
  };
  expect(kept.formatVersion).toBe(5);
  expect(validatePlan(kept), JSON.stringify(validatePlan.errors)).toBe(true);
  expect(kept.policy.violations).toEqual([]);
  expect(kept.policy.existing).toEqual([expect.objectContaining({ rule: "no-open-ports", count: 1, addresses: ["cube/web/port/5432"] })]);
  const [group] = kept.policy.existing;
  expect(validatePlan({ ...kept, policy: { ...kept.policy, existing: [{ ...group, count: undefined }] } })).toBe(false);

  // The schema can fail: an action it does not know, a missing summary.
  expect(validatePlan({ ...second, changes: [{ ...second.changes[0], action: "recreate" }] })).toBe(false);
  const { summary: _summary, ...withoutSummary } = second;
  expect(validatePlan(withoutSummary)).toBe(false);
});

test("the example Rego policy (examples/policy) reads fields the plan's JSON has: a created port's allow list and cubePort", async ({
  fx,
}) => {
  const rego = read("examples/policy/no-open-ports.rego");
  expect(rego).toMatch(/some change in input\.changes/);
  for (const field of ['change.kind == "port"', "change.action in makes", 'object.get(port, "allow", [])', "change.after.cubePort"])
    expect(rego).toContain(field);
  writeFileSync(join(fx.cwd, "cubeform.yaml"), `${HEADER}cubes:\n  - name: web\n    ports: [{ cubePort: 5432, udp: false }]\n`);
  const plan = JSON.parse((await fx.cli(["plan", "--format", "json", ...FAST])).stdout) as PlanJson;
  expect(plan.changes.find((c) => c.kind === "port")).toMatchObject({ action: "create", after: { cubePort: 5432, allow: [] } });
});
