/**
 * One writer per space, a pacing window shared by the processes of one machine, deletes that
 * are waited for, and an apply that says "The space matches the file." only when it does.
 * Issue 10 items 1–4, through the bin against the emulator.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { APPLY, cubeNameCounts, describeRun, holdingProxy, project, RATE, SSH_KEY, twoAppliesOnOneLock, waitFor } from "./support.js";

function fleet(names: string[], extra = ""): string {
  return `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  sshPublicKey: ${SSH_KEY}
${extra}cubes:
${names.map((n) => `  - name: ${n}\n`).join("")}`;
}

test("two applies started together serialize on the space lock: one cube per name, the second waits and finds nothing to do", async () => {
  const p = await project({ "cubeform.yaml": fleet(["api", "worker"]) });
  // A slow create: the first create is held on the wire until the other run is seen waiting.
  const started = Date.now();
  const [a, b] = await twoAppliesOnOneLock(p);
  const seconds = (Date.now() - started) / 1000;
  expect(await cubeNameCounts(p.api)).toEqual({ api: 1, worker: 1 });
  const waited = [a!, b!].filter((r) => r.stdout.includes("Waiting for the lock of space"));
  expect(waited).toHaveLength(1);
  expect(waited[0]?.stdout).toMatch(/`cubeform apply` \(pid \d+ on /);
  expect(waited[0]?.stdout).toContain("No changes");
  expect(p.emu.admin.requests().filter((r) => r.method === "POST" && r.path.endsWith("/cubes"))).toHaveLength(2);
  console.info(`two applies started together: ${seconds.toFixed(1)} s, cubes per name ${JSON.stringify(await cubeNameCounts(p.api))}`);
});

test("two checkouts of one project on one machine share the lock (it is per space, not per directory)", async () => {
  const p = await project({ "cubeform.yaml": fleet(["api"]) });
  const other = join(p.cwd, "second-checkout");
  mkdirSync(other);
  writeFileSync(join(other, "cubeform.yaml"), fleet(["api"]));
  p.emu.admin.injectFault({ kind: "latency", method: "POST", path: "/cubes$", ms: 700, times: 2 });
  const first = p.start(APPLY);
  const second = p.start([...APPLY, "-f", join(other, "cubeform.yaml")]);
  const [a, b] = await Promise.all([first.exited, second.exited]);
  expect([a.code, b.code], `${describeRun(a)}\n${describeRun(b)}`).toEqual([0, 0]);
  expect(await cubeNameCounts(p.api)).toEqual({ api: 1 });
});

test("--lock-timeout: a run that cannot get the lock in time says who holds it and sends nothing", async () => {
  const p = await project({ "cubeform.yaml": fleet(["api"]) });
  // The first run's create is held on the wire until the second run has given up.
  const proxy = await holdingProxy(p.emu, (method, path) => method === "POST" && path.endsWith("/cubes"));
  const holder = p.start(APPLY, { CUBE_API_URL: proxy.url });
  await proxy.held;
  const mutationsBefore = p.mutations();
  const late = await p.run([...APPLY, "--lock-timeout", "0.3"], { CUBE_API_URL: proxy.url });
  expect(late.code, describeRun(late)).toBe(1);
  expect(late.stderr).toMatch(/another run holds the lock of space .*`cubeform apply` \(pid \d+.*--lock-timeout.*Nothing was sent/);
  expect(p.mutations()).toBe(mutationsBefore);
  await proxy.release();
  expect((await holder.exited).code).toBe(0);
  expect(await cubeNameCounts(p.api)).toEqual({ api: 1 });
});

test("a lock left by a killed run is stale: the next run takes it over at once", async () => {
  const p = await project({ "cubeform.yaml": fleet(["api"]) });
  p.emu.admin.injectFault({ kind: "latency", method: "POST", path: "/cubes$", ms: 5000 });
  const killed = p.start(APPLY);
  await waitFor(() => killed.stdout().includes("Applying:"), { timeoutMs: 15_000, message: "the run to start applying" });
  killed.process.kill("SIGKILL");
  await killed.exited;
  p.emu.admin.clearFaults();
  const next = await p.run([...APPLY, "--lock-timeout", "0"]);
  expect(next.code, describeRun(next)).toBe(0);
  expect(await cubeNameCounts(p.api)).toEqual({ api: 1 });
});

test("the pacing window is shared by the runs of one machine: the second run's plan shows the real wait and its apply gets no 429", async () => {
  const p = await project({ "cubeform.yaml": fleet(["a1", "a2"]) });
  p.emu.admin.setRateLimit({ limit: 2, windowMs: 10_000 });
  const other = join(p.cwd, "other");
  mkdirSync(other);
  writeFileSync(join(other, "cubeform.yaml"), fleet(["b1"]));
  const rate = ["--rate-limit", "2/10"];
  const first = await p.run(["apply", "--auto-approve", "--poll-interval", "20", ...rate]);
  expect(first.code, describeRun(first)).toBe(0);
  // Another checkout, another process: the window the first run filled is the one it waits for.
  const plan = await p.run(["plan", ...rate, "-f", join(other, "cubeform.yaml")]);
  const wait = /makes this take at least ([\d.]+) s/.exec(plan.stdout);
  expect(Number(wait?.[1]), plan.stdout).toBeGreaterThan(2);
  const second = await p.run(["apply", "--auto-approve", "--poll-interval", "20", ...rate, "-f", join(other, "cubeform.yaml")]);
  expect(second.code, describeRun(second)).toBe(0);
  expect(p.emu.admin.requests().filter((r) => r.status === 429)).toEqual([]);
  expect(await cubeNameCounts(p.api)).toEqual({ a1: 1, a2: 1, b1: 1 });
});

test("apply --prune waits until the API no longer lists the deleted cube; a plan after an unfinished wait does not count it", async () => {
  const p = await project({ "cubeform.yaml": fleet(["keep"]) });
  const extra = await p.api.createCube(outOfBand("extra"), { idempotencyKey: "extra-1" });
  const gone = await p.api.createCube(outOfBand("gone"), { idempotencyKey: "gone-1" });
  const first = await p.run([...APPLY, "--target", "keep"]);
  expect(first.code, describeRun(first)).toBe(0);
  // Real-time deletes: 2 s at clock speed 1.
  p.emu.admin.setClockSpeed(1);
  writeFileSync(join(p.cwd, "cubeform.yaml"), fleet(["keep", "gone"]));
  const pruned = await p.run([...APPLY, "--prune"]);
  expect(pruned.code, describeRun(pruned)).toBe(0);
  expect(pruned.stdout).toContain("wait-deleted cube/extra");
  expect((await p.api.listCubes()).map((c) => c.id)).not.toContain(extra.id);
  expect(pruned.stdout).toContain("The space matches the file.");

  // A wait that runs out: the next plan leaves the cube out while the API finishes deleting it
  // (40 s at clock speed 0.05).
  p.emu.admin.setClockSpeed(0.05);
  writeFileSync(join(p.cwd, "cubeform.yaml"), fleet(["keep"]));
  // A nearly stopped clock keeps the deletion under way however slow this machine is.
  p.emu.admin.setClockSpeed(0.001);
  const cut = await p.run([...APPLY, "--prune", "--wait-timeout", "0.05"]);
  expect(cut.code, describeRun(cut)).toBe(1);
  expect((await p.api.listCubes()).map((c) => c.id)).toContain(gone.id);
  const plan = await p.run(["plan", ...RATE, "--prune"]);
  expect(plan.code, describeRun(plan)).toBe(0);
  expect(plan.stderr).toContain('Not counted as present: cube "gone", whose deletion is under way.');
});

test("never says the space matches the file after a blocked prune or with untargeted cubes that differ", async () => {
  const p = await project({ "cubeform.yaml": fleet(["web"]) });
  const kept = await p.api.createCube(outOfBand("precious"), { idempotencyKey: "precious-1" });
  await p.api.setTerminationProtection(kept.id, true);
  const blocked = await p.run([...APPLY, "--prune"]);
  expect(blocked.code, describeRun(blocked)).toBe(1);
  expect(blocked.stdout).not.toContain("The space matches the file.");
  expect(blocked.stdout).toContain("The space does not match the file: 1 blocked change remains");

  writeFileSync(join(p.cwd, "cubeform.yaml"), fleet(["web", "api", "worker"]));
  const targeted = await p.run([...APPLY, "--target", "api"]);
  expect(targeted.code, describeRun(targeted)).toBe(0);
  expect(targeted.stdout).not.toContain("The space matches the file.");
  expect(targeted.stdout).toContain(
    'The targeted cubes match the file, but the space does not: 1 other cube differs ("worker"), left out by --target',
  );
});

/** A cube made beside cubeform (by a person, another tool). */
function outOfBand(name: string) {
  return { name, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY };
}
