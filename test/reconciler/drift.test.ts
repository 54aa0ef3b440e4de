import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { createCubeOutsideTheFile } from "./support/cubes.js";
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
  await createCubeOutsideTheFile(fx, "legacy");
  fx.emulator.admin.clearRequests();

  const r = await fx.cli(["drift", ...FAST]);
  expect(r.exitCode).toBe(2);
  expect(r.stdout).toMatch(
    /Drift: 1 live resource differs from cubeform\.yaml \(live → file\):\n {2}~ cube\/worker\n {6}~ power: "running" → "stopped"/,
  );
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
  expect(r.stdout).toContain(
    "::warning file=cubeform.yaml,line=36,col=5::cube/db: drift (update in place): terminationProtection false → true\n",
  );
  expect(readFileSync(summary, "utf8")).toContain("### cubeform drift");
});

test("DNS record views answered 429 are retried after a short backoff; ones that stay 429 are reported as not checked, which is not drift", async ({
  fx,
}) => {
  await applyFleet(fx);
  fx.emulator.admin.injectFault({ kind: "status", status: 429, method: "GET", path: "/records$", times: 2 });
  const retried = await fx.cli(["drift", ...FAST]);
  expect(retried.exitCode, retried.stderr).toBe(0);
  expect(retried.stdout).toMatch(/missing\s+CNAME www\.demo\.example\.com → /);
  expect(retried.stdout).not.toContain("could not be checked");

  fx.emulator.admin.injectFault({ kind: "status", status: 429, method: "GET", path: "/records$", times: 1_000 });
  fx.emulator.admin.clearRequests();
  const started = Date.now();
  const limited = await fx.cli(["drift", "--dns-concurrency", "2", "--dns-rate", "20/1", ...FAST]);
  expect(limited.exitCode, limited.stderr).toBe(0);
  expect(limited.stdout).toMatch(/www\.demo\.example\.com \(cube\/web\/domain\/www\.demo\.example\.com\): could not be checked: .*429/);
  expect(limited.stdout).toMatch(/(\d+) of \1 domains could not be checked/);
  expect(Date.now() - started).toBeLessThan(20_000); // short backoffs, never a fixed minute
  expect(fx.mutations()).toBe(0);
  fx.emulator.admin.clearFaults();
});

test("a bad --dns-rate is a one-line error naming the flag, and nothing is read", async ({ fx }) => {
  const r = await fx.cli(["drift", "--dns-rate", "fast", ...FAST]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^Error: --dns-rate must look like N\/SECONDS/m);
  expect(fx.emulator.admin.requests()).toEqual([]);
});
