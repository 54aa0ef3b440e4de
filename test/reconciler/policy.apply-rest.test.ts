/**
 * Issue 36 item 3: apply, a saved plan and watch --apply refuse a mandatory violation before any mutation and carry out the rest of the
 * plan where it does not depend on the refused part. A refused port leaves its cube to be created; a refused cube create takes its domain
 * and port along; an unrelated cube proceeds. Mutations are counted at the emulator.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, FAST_APPLY, test, type CliFixture } from "./support/fixtures.js";
import { HEADER, NO_OPEN_PORTS, policyFile } from "./support/policy.js";

const SMALL = `- name: small\n  enforcement: mandatory\n  max: { vcpu: 2 }`;

const FLEET = `${HEADER}cubes:
  - name: web
    ports: [{ cubePort: 5432, udp: false }]
  - name: big
    resources: { vcpu: 8, ramGb: 8, diskGb: 20 }
    ports: [{ cubePort: 443, udp: false, allow: [203.0.113.0/24] }]
    domains: [{ hostname: big.policy.example.com, port: 8080 }]
  - name: ok
    ports: [{ cubePort: 443, udp: false, allow: [203.0.113.0/24] }]
    domains: [{ hostname: ok.policy.example.com, port: 8080 }]
`;

function setUp(fx: CliFixture): void {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), FLEET);
  writeFileSync(join(fx.cwd, "policy.yaml"), policyFile(NO_OPEN_PORTS, SMALL));
}

/** The mutations the emulator answered, as "METHOD what", in order. */
function mutationsSent(fx: CliFixture): string[] {
  return fx.emulator.admin
    .requests()
    .filter((r) => r.mutating && r.status < 300)
    .map((r) => `${r.method} ${r.path.replace(/^.*\/spaces\/[^/]+/, "").replace(/cube_\w+/, "ID")}`);
}

async function expectTheRestApplied(fx: CliFixture): Promise<void> {
  const cubes = await fx.api.listCubes();
  expect(cubes.map((c) => c.name).sort()).toEqual(["ok", "web"]);
  const sent = mutationsSent(fx);
  // web and ok created; ok's port and domain; nothing for big, nothing for web's open port.
  expect(sent.filter((m) => m === "POST /cubes")).toHaveLength(2);
  expect(sent.filter((m) => m.endsWith("/tcp-mappings"))).toEqual(["POST /cubes/ID/tcp-mappings"]);
  expect(sent.filter((m) => m.endsWith("/domains"))).toEqual(["POST /cubes/ID/domains"]);
  expect(sent).toHaveLength(4);
  const web = cubes.find((c) => c.name === "web");
  expect((await fx.api.listTcpMappings(web?.id as string)).filter((m) => !m.isSsh)).toEqual([]);
}

test("apply: the refused port and the refused cube (with its domain and port) are not sent; the rest is; exit 1 naming them", {
  timeout: 120_000,
}, async ({ fx }) => {
  setUp(fx);
  const r = await fx.cli(["apply", "--auto-approve", "--policy", "policy.yaml", ...FAST_APPLY]);
  expect(r.exitCode, r.stderr).toBe(1);
  expect(r.stdout).toContain("Refused by policy (no-open-ports, small): 4 changes are not sent (listed under Blocked)");
  expect(r.stdout).toContain("cube/web/port/5432: policy no-open-ports (mandatory): port 5432 has no allow list");
  expect(r.stdout).toContain("cube/big/domain/big.policy.example.com: depends on cube/big, refused by policy");
  expect(r.stdout).toMatch(/Blocked: cube\/big: policy small \(mandatory\): resources\.vcpu is 8, over the maximum of 2/);
  expect(r.stdout).toContain("The space does not match the file: 4 blocked changes remain");
  await expectTheRestApplied(fx);
});

test("apply --format json lists the refused changes as blocked with code policy_violation", { timeout: 120_000 }, async ({ fx }) => {
  setUp(fx);
  const r = await fx.cli(["apply", "--auto-approve", "--policy", "policy.yaml", "--format", "json", ...FAST_APPLY]);
  expect(r.exitCode, r.stderr).toBe(1);
  const result = JSON.parse(r.stdout) as { blocked: { address: string; code: string }[]; mutationsSent: number };
  expect(result.blocked.map((b) => `${b.code} ${b.address}`).sort()).toEqual([
    "policy_violation cube/big",
    "policy_violation cube/big/domain/big.policy.example.com",
    "policy_violation cube/big/port/443",
    "policy_violation cube/web/port/5432",
  ]);
  await expectTheRestApplied(fx);
});

test("a saved plan: apply plan.json cuts the same part and carries out the rest", { timeout: 120_000 }, async ({ fx }) => {
  setUp(fx);
  expect((await fx.cli(["plan", "--policy", "policy.yaml", "--out", "plan.json", ...FAST])).exitCode).toBe(2);
  const r = await fx.cli(["apply", "plan.json", "--policy", "policy.yaml", ...FAST_APPLY]);
  expect(r.exitCode, r.stderr).toBe(1);
  expect(r.stdout).toContain("Refused by policy (no-open-ports, small): 4 changes are not sent");
  await expectTheRestApplied(fx);
});

test("watch --apply: the round applies the rest, and the next round has nothing else to do", { timeout: 120_000 }, async ({ fx }) => {
  setUp(fx);
  const r = await fx.cli(["watch", "--apply", "--once", "--policy", "policy.yaml", ...FAST_APPLY]);
  expect(r.stdout).toMatch(/round 1: Refused by policy \(no-open-ports, small\): 4 changes are not sent/);
  await expectTheRestApplied(fx);
  fx.emulator.admin.clearRequests();
  const again = await fx.cli(["watch", "--apply", "--once", "--policy", "policy.yaml", ...FAST_APPLY]);
  expect(again.stdout).toContain("not applied: 2 mandatory policy violations (listed below); nothing was sent");
  expect(mutationsSent(fx)).toEqual([]);
});
