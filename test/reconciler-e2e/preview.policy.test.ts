/**
 * `cubeform preview up` checked against policies (issue 36) as CI runs it: the built bin against the emulator on 127.0.0.1. The same policy
 * options as apply (--policy, CUBEFORM_POLICY, --override-policy RULE --reason TEXT); a mandatory violation sends nothing, an advisory one is
 * printed, and the pull request comment (--format markdown) shows them.
 */
import { expect, test } from "vitest";
import { describeRun, plainFleet, project, RATE, type Project } from "./support.js";

const FAST = [...RATE, "--poll-interval", "20"];

const FLEET = `${plainFleet("web")}    ports:
      - { cubePort: 5432, udp: false }
      - { cubePort: 5353, allow: [10.0.0.0/8] }
`;

const MANDATORY = "  - { name: no-open-ports, enforcement: mandatory, deny: { portsOpenToInternet: true } }\n";
const ADVISORY = "  - { name: no-udp, enforcement: advisory, deny: { udpPorts: true } }\n";
const policy = (...rules: string[]) => `apiVersion: cubeform/v1\nkind: Policy\nrules:\n${rules.join("")}`;

const previewCubes = async (p: Project) => (await p.api.listCubes()).filter((c) => c.state !== "deleted").map((c) => c.name);

test("a mandatory violation refuses preview up before any mutation, from --policy or CUBEFORM_POLICY", { timeout: 120_000 }, async () => {
  const p = await project({ "cubeform.yaml": FLEET, "policy.yaml": policy(MANDATORY, ADVISORY) });
  const flagged = await p.run(["preview", "up", "--id", "pr-4", "--policy", "policy.yaml", ...FAST]);
  expect(flagged.code, describeRun(flagged)).toBe(1);
  expect(flagged.stdout).toContain("✗ policy no-open-ports (mandatory, blocks apply): port 5432 has no allow list");
  expect(flagged.stderr).toContain("mandatory policy violation (no-open-ports), listed above; nothing was sent");
  expect(flagged.stderr).toContain("--override-policy no-open-ports --reason TEXT");
  expect(p.mutations()).toBe(0);

  const fromEnv = await p.run(["preview", "up", "--id", "pr-4", "-o", "json", ...FAST], { CUBEFORM_POLICY: "policy.yaml" });
  expect(fromEnv.code, describeRun(fromEnv)).toBe(1);
  expect(fromEnv.stderr).toContain("refusing to apply: 1 mandatory policy violation (no-open-ports)");
  expect(p.mutations()).toBe(0);
  expect(await previewCubes(p)).toEqual([]);

  // A broken policy file is located before anything connects.
  const typo = await p.run(["preview", "up", "--id", "pr-4", "--policy", "cubeform.yaml", ...FAST]);
  expect(typo.code).toBe(1);
  expect(p.mutations()).toBe(0);
});

test("--override-policy RULE --reason TEXT lets the rule pass; the markdown comment shows the advisory violation and the override", {
  timeout: 120_000,
}, async () => {
  const p = await project({ "cubeform.yaml": FLEET, "policy.yaml": policy(MANDATORY, ADVISORY) });
  const noReason = await p.run(["preview", "up", "--id", "pr-5", "--policy", "policy.yaml", "--override-policy", "no-open-ports", ...FAST]);
  expect(noReason.code).toBe(1);
  expect(noReason.stderr).toContain("--override-policy needs --reason TEXT");
  expect(p.mutations()).toBe(0);

  const up = await p.run([
    "preview",
    "up",
    "--id",
    "pr-5",
    "--policy",
    "policy.yaml",
    "--override-policy",
    "no-open-ports",
    "--reason",
    "a throwaway database",
    "--format",
    "markdown",
    ...FAST,
  ]);
  expect(up.code, describeRun(up)).toBe(0);
  expect(up.stdout).toContain("#### Policy");
  expect(up.stdout).toContain("2 rules checked: 2 warnings.");
  expect(up.stdout).toContain(
    "| :warning: | <code>cube/web-pr-5/port/5353</code> | <code>no-udp</code> (advisory) | port 5353 publishes UDP (udp: true, the default) |",
  );
  expect(up.stdout).toContain("<code>no-open-ports</code> (mandatory, overridden: a throwaway database)");
  expect(up.stdout).toContain("Override: rule <code>no-open-ports</code> passes for this apply; reason: a throwaway database");
  expect(await previewCubes(p)).toEqual(["web-pr-5"]);
});

test("an advisory violation is printed and the preview is made; JSON carries it", { timeout: 120_000 }, async () => {
  const p = await project({ "cubeform.yaml": FLEET, "policy.yaml": policy(ADVISORY) });
  const up = await p.run(["preview", "up", "--id", "pr-6", "--policy", "policy.yaml", ...FAST]);
  expect(up.code, describeRun(up)).toBe(0);
  expect(up.stdout).toContain("! policy no-udp (advisory): port 5353 publishes UDP (udp: true, the default)");
  expect(up.stdout).toContain("Policy: 1 rule checked: 1 warning.");
  expect(await previewCubes(p)).toEqual(["web-pr-6"]);

  const again = await p.run(["preview", "up", "--id", "pr-6", "-o", "json", ...FAST], { CUBEFORM_POLICY: "policy.yaml" });
  expect(again.code, describeRun(again)).toBe(0);
  const report = JSON.parse(again.stdout) as { mutationsSent: number; policy: { violations: unknown[]; existing: unknown[] } };
  expect(report.mutationsSent).toBe(0);
  // Unchanged, the live port's violation is kept, not made: a warning grouped in policy.existing.
  expect(report.policy.violations).toEqual([]);
  expect(report.policy.existing).toEqual([expect.objectContaining({ rule: "no-udp", count: 1, addresses: ["cube/web-pr-6/port/5353"] })]);
});
