/** Issue 36 item 1: a policy file (--policy, repeatable, or CUBEFORM_POLICY), typed and validated like the fleet file; item 4: the fleet may add rules, never redefine one. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, test } from "./support/fixtures.js";
import { HEADER, NO_OPEN_PORTS, policyFile } from "./support/policy.js";

const FLEET = `${HEADER}cubes:\n  - name: web\n    ports: [{ cubePort: 5432, udp: false }]\n`;

test("item 1: unknown keys and values are located FILE:LINE:COL with did-you-mean, every problem at once, before anything is sent", async ({
  fx,
}) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), FLEET);
  writeFileSync(
    join(fx.cwd, "policy.yaml"),
    policyFile(
      `- name: no-open-ports\n  enforcment: mandatory\n  deny: { portsOpenToInternet: true }`,
      `- name: small\n  enforcement: mandatry\n  max: { vcpu: 4, ramgb: 8 }`,
      `- name: two-kinds\n  enforcement: advisory\n  max: { vcpu: 4 }\n  require: { terminationProtection: true }`,
    ),
  );
  const r = await fx.cli(["plan", "--policy", "policy.yaml", ...FAST]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toContain("policy.yaml:4:5: rules[0].enforcement: required key is missing");
  expect(r.stderr).toContain('policy.yaml:5:5: rules[0]: unknown key "enforcment" (did you mean "enforcement"?)');
  expect(r.stderr).toContain('policy.yaml:8:18: rules[1].enforcement: "mandatry" is not allowed here (did you mean "mandatory"?)');
  expect(r.stderr).toContain('policy.yaml:9:21: rules[1].max: unknown key "ramgb" (did you mean "ramGb"?)');
  expect(r.stderr).toContain(
    "policy.yaml:13:14: rules[2].require: a rule has one check, this one has max and require: make one rule of each",
  );
  expect(fx.emulator.admin.requests()).toHaveLength(0);
});

test("item 1: CUBEFORM_POLICY names the policy files when --policy is not given; several files are all checked; --policy wins", async ({
  fx,
}) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), FLEET);
  writeFileSync(join(fx.cwd, "ports.yaml"), policyFile(NO_OPEN_PORTS));
  writeFileSync(join(fx.cwd, "sizes.yaml"), policyFile(`- name: tiny\n  enforcement: advisory\n  max: { ramGb: 0.5 }`));
  const fromEnv = await fx.cli(["plan", "--format", "json", ...FAST], { env: { CUBEFORM_POLICY: `ports.yaml:sizes.yaml` } });
  const rules = (out: string) =>
    (JSON.parse(out) as { policy: { violations: { rule: string }[] } }).policy.violations.map((v) => v.rule).sort();
  expect(rules(fromEnv.stdout)).toEqual(["no-open-ports", "tiny"]);
  const flags = await fx.cli(["plan", "--format", "json", "--policy", "sizes.yaml", ...FAST], { env: { CUBEFORM_POLICY: "ports.yaml" } });
  expect(rules(flags.stdout)).toEqual(["tiny"]);
  // Without any rule, the plan's JSON is as before.
  expect(JSON.parse((await fx.cli(["plan", "--format", "json", ...FAST])).stdout)).not.toHaveProperty("policy");
});

test("item 4: a fleet file may add rules, but one redefining a policy-file rule (to disable or downgrade it) is an error naming both places", async ({
  fx,
}) => {
  writeFileSync(join(fx.cwd, "policy.yaml"), policyFile(NO_OPEN_PORTS));
  const downgrade = `policies:\n  - name: no-open-ports\n    enforcement: advisory\n    match: { names: ["nothing"] }\n    deny: { portsOpenToInternet: true }\n`;
  writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FLEET}${downgrade}`);
  const r = await fx.cli(["plan", "--policy", "policy.yaml", ...FAST]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toContain(
    'cubeform.yaml:10:5: policies[0]: rule "no-open-ports" is a rule of the policy file at policy.yaml:4:5 (mandatory); a fleet file may add rules but never disable, downgrade or redefine one of a policy file: give this rule another name',
  );
  expect(fx.emulator.admin.requests()).toHaveLength(0);

  // Its own rules are checked beside the policy file's.
  writeFileSync(
    join(fx.cwd, "cubeform.yaml"),
    `${FLEET}policies:\n  - name: protect-all\n    enforcement: advisory\n    require: { terminationProtection: true }\n`,
  );
  const added = await fx.cli(["plan", "--policy", "policy.yaml", "--format", "json", ...FAST]);
  const { policy } = JSON.parse(added.stdout) as { policy: { violations: { rule: string; source: string }[] } };
  expect(policy.violations.map((v) => [v.rule, v.source])).toEqual([
    ["no-open-ports", "policy.yaml:4:5"],
    ["protect-all", "cubeform.yaml:10:5"],
  ]);
});
