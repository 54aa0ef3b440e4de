/**
 * Issue 36 items 1–3: a policy file's rules, each kind advisory and mandatory, judged on the plan through the CLI against the emulator.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { FAST, test } from "./support/fixtures.js";
import { HEADER, policyFile, type Violation } from "./support/policy.js";

interface Kind {
  kind: string;
  /** The rule's check, as YAML (one line). */
  check: string;
  /** What each cube adds to the defaults ({name} is the cube's name). */
  cube?: string;
  /** The fleet file's other top-level keys. */
  extra?: string;
  checkName: string;
  /** Where the violation is, for the cube named; undefined: the same place for both rules. */
  address: (cube: string) => string;
}

const KINDS: Kind[] = [
  {
    kind: "ports open to the internet",
    check: "deny: { portsOpenToInternet: true }",
    cube: "ports: [{ cubePort: 5432, udp: false }]",
    checkName: "deny.portsOpenToInternet",
    address: (c) => `cube/${c}/port/5432`,
  },
  {
    kind: "UDP ports",
    check: "deny: { udpPorts: true }",
    cube: "ports: [{ cubePort: 53, allow: [10.0.0.0/8] }]",
    checkName: "deny.udpPorts",
    address: (c) => `cube/${c}/port/53`,
  },
  {
    kind: "domains without basic auth or an IP allow list",
    check: "deny: { domainsWithoutAccessControl: true }",
    cube: "domains: [{ hostname: {name}.policy.example.com, port: 8080 }]",
    checkName: "deny.domainsWithoutAccessControl",
    address: (c) => `cube/${c}/domain/${c}.policy.example.com`,
  },
  { kind: "allowed images", check: 'allowed: { images: ["debian-*"] }', checkName: "allowed.images", address: (c) => `cube/${c}` },
  {
    kind: "allowed regions",
    check: 'allowed: { regions: ["eu-*"] }',
    cube: "region: us-ashburn",
    checkName: "allowed.regions",
    address: (c) => `cube/${c}`,
  },
  {
    kind: "maximum resources",
    check: "max: { vcpu: 2, diskGb: 100 }",
    cube: "resources: { vcpu: 4, ramGb: 4, diskGb: 20 }",
    checkName: "max.vcpu",
    address: (c) => `cube/${c}`,
  },
  {
    kind: "termination protection required",
    check: "require: { terminationProtection: true }",
    checkName: "require.terminationProtection",
    address: (c) => `cube/${c}`,
  },
  { kind: "replicas bounds", check: "replicas: { min: 2 }", checkName: "replicas.min", address: (c) => `group/${c.replace(/-1$/, "")}` },
  {
    kind: "maximum monthly cost per cube",
    check: "max: { monthlyCostPerCube: 3 }",
    checkName: "max.monthlyCostPerCube",
    address: (c) => `cube/${c}`,
  },
  {
    kind: "maximum monthly cost of the change",
    check: "max: { monthlyCostIncrease: 5 }",
    checkName: "max.monthlyCostIncrease",
    address: () => "plan",
  },
  {
    kind: "webhooks only to allowed hosts",
    check: 'allowed: { webhookHosts: ["hooks.example.com"] }',
    extra: "webhooks:\n  - url: https://collector.example.net/cube\n    events: [cube.created]\n    secretFile: hook.secret\n",
    checkName: "allowed.webhookHosts",
    address: () => "webhook/https://collector.example.net/cube",
  },
];

const fleetFor = (kind: Kind): string => {
  const cube = (name: string) => `  - name: ${name}\n${kind.cube ? `    ${kind.cube.replaceAll("{name}", name)}\n` : ""}`;
  return `${HEADER}cubes:\n${cube("a-1")}${cube("b-1")}${kind.extra ?? ""}`;
};

const rulesFor = (kind: Kind): string =>
  policyFile(
    `- name: strict\n  enforcement: mandatory\n  match: { names: ["a-*"] }\n  ${kind.check}`,
    `- name: gentle\n  enforcement: advisory\n  match: { names: ["b-*"] }\n  ${kind.check}`,
  );

describe("item 2: a test per rule kind, mandatory (blocks: --fail-on policy exits 1) and advisory (a warning)", () => {
  test.for(KINDS)("$kind", async (kind, { fx }) => {
    writeFileSync(join(fx.cwd, "cubeform.yaml"), fleetFor(kind));
    writeFileSync(join(fx.cwd, "policy.yaml"), rulesFor(kind));
    const r = await fx.cli(["plan", "--policy", "policy.yaml", "--format", "json", "--fail-on", "policy", ...FAST]);
    expect(r.exitCode, r.stderr).toBe(1);
    const { policy } = JSON.parse(r.stdout) as { policy: { rules: number; violations: Violation[] } };
    expect(policy.rules).toBe(2);
    const strict = policy.violations.filter((v) => v.rule === "strict");
    const gentle = policy.violations.filter((v) => v.rule === "gentle");
    expect(strict).toEqual([expect.objectContaining({ enforcement: "mandatory", check: kind.checkName, address: kind.address("a-1") })]);
    expect(gentle).toEqual([expect.objectContaining({ enforcement: "advisory", check: kind.checkName, address: kind.address("b-1") })]);
    expect(strict[0]?.saw).not.toBe("");
    expect(strict[0]?.fix).not.toBe("");

    // The advisory rule alone never fails the check.
    writeFileSync(join(fx.cwd, "policy.yaml"), policyFile(`- name: gentle\n  enforcement: advisory\n  ${kind.check}`));
    expect((await fx.cli(["plan", "--policy", "policy.yaml", "--fail-on", "policy", ...FAST])).exitCode).toBe(0);
    expect(fx.mutations()).toBe(0);
  });
});

test("item 3: the text plan shows each violation under its resource, with the rule, what it saw and how to fix it", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), fleetFor(KINDS[0] as Kind));
  writeFileSync(join(fx.cwd, "policy.yaml"), rulesFor(KINDS[0] as Kind));
  const r = await fx.cli(["plan", "--policy", "policy.yaml", ...FAST]);
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.stdout).toContain(
    [
      "  + cube/a-1/port/5432 (create)",
      "      + cubePort: 5432",
      "      + udp: false",
      "      + allow: []",
      "      ✗ policy strict (mandatory, blocks apply): port 5432 has no allow list: open to the whole internet",
      "        fix: list the addresses that may connect in the port's allow (e.g. allow: [203.0.113.0/24]), without 0.0.0.0/0 or ::/0",
    ].join("\n"),
  );
  expect(r.stdout).toContain("! policy gentle (advisory): port 5432 has no allow list");
  expect(r.stdout).toContain("Policy: 2 rules checked: 1 mandatory violation blocks apply, 1 warning.");
  expect(r.stdout).toMatch(/rule at policy\.yaml:4:5/);

  const markdown = await fx.cli(["plan", "--policy", "policy.yaml", "--format", "markdown", ...FAST]);
  expect(markdown.stdout, markdown.stdout).toContain("#### Policy");
  expect(markdown.stdout).toMatch(
    /\| :no_entry: \| <code>cube\/a-1\/port\/5432<\/code> \| <code>strict<\/code> \(mandatory, blocks apply\) \| port 5432 has no allow list/,
  );
  const github = await fx.cli(["plan", "--policy", "policy.yaml", "--format", "github", ...FAST]);
  expect(github.stdout).toMatch(
    /^::error file=cubeform\.yaml,line=7,col=5::cube\/a-1\/port\/5432: policy strict \(mandatory, blocks apply\): port 5432 has no allow list/m,
  );
  expect(github.stdout).toMatch(/^::warning file=cubeform\.yaml,line=9,col=5::cube\/b-1\/port\/5432: policy gentle \(advisory\)/m);
});
