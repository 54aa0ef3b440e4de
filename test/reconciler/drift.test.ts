import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, FAST_APPLY, test, type CliFixture } from "./support/fixtures.js";

async function applyFleet(fx: CliFixture): Promise<void> {
  const r = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  expect(r.exitCode, r.stderr).toBe(0);
}

async function cubeId(fx: CliFixture, name: string): Promise<string> {
  const cube = (await fx.api.listCubes()).find((c) => c.name === name);
  if (!cube) throw new Error(`no cube ${name}`);
  return cube.id;
}

test("in sync: exit 0; pending DNS records are reported but are not drift", async ({ fx }) => {
  await applyFleet(fx);
  fx.emulator.admin.clearRequests();
  const r = await fx.cli(["drift", ...FAST]);
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain("DNS records not all found");
  expect(r.stdout).toMatch(/missing\s+CNAME www\.demo\.example\.com → /);
  expect(r.stdout).toContain("No drift: the space matches cubeform.yaml.");
  expect(fx.mutations()).toBe(0);
});

test("out-of-band changes: exit 2 with the changed fields, missing resources and unmanaged cubes; nothing is changed", async ({ fx }) => {
  await applyFleet(fx);
  await fx.api.wake(await cubeId(fx, "worker"));
  const port = (await fx.api.listTcpMappings(await cubeId(fx, "db"))).find((m) => m.cubePort === 6379);
  await fx.api.deleteTcpMapping(await cubeId(fx, "db"), port!.id);
  await fx.api.createCube(
    { name: "legacy", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxlZ2FjeQ== x" },
    { idempotencyKey: "legacy-1" },
  );
  fx.emulator.admin.clearRequests();

  const r = await fx.cli(["drift", ...FAST]);
  expect(r.exitCode).toBe(2);
  expect(r.stdout).toMatch(/Drift: 1 live resource differs from cubeform\.yaml \(live → file\):\n {2}~ cube\/worker\n {6}power: "running" → "stopped"/);
  expect(r.stdout).toContain("Missing (declared in cubeform.yaml, not in the space):\n  + cube/db/port/6379");
  expect(r.stdout).toMatch(/Unmanaged cubes .*\n {2}\? cube\/legacy \(id /);
  expect(fx.mutations()).toBe(0);
});

test("drift --format github: warnings at the cube's line, and the step summary", async ({ fx }) => {
  await applyFleet(fx);
  await fx.api.setTerminationProtection(await cubeId(fx, "db"), false);
  const summary = join(fx.cwd, "summary.md");
  const r = await fx.cli(["drift", "--format", "github", ...FAST], { env: { GITHUB_STEP_SUMMARY: summary } });
  expect(r.exitCode).toBe(2);
  expect(r.stdout).toContain("::warning file=cubeform.yaml,line=36,col=5::cube/db: drift (update in place): terminationProtection false → true\n");
  expect(readFileSync(summary, "utf8")).toContain("### cubeform drift");
});
