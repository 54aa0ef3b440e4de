/** Wording a person trips over (issue 22 item 9): a stopped cube's ssh, "no wait" instead of "at least 0 s", "1 change". */
import { expect } from "vitest";
import { waitFor } from "../support/wait.js";
import { SSH_KEY } from "./support/cli.js";
import { FAST, test } from "./support/fixtures.js";

test("cube ssh on a stopped cube says so; with --exec it refuses and names the way out", async ({ fx }) => {
  const web = await fx.api.createCube(
    { name: "web", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "web" },
  );
  await waitFor(async () => ((await fx.api.getCube(web.id)).state === "running" ? true : undefined), { timeoutMs: 15_000 });
  await fx.api.powerOff(web.id);
  await waitFor(async () => ((await fx.api.getCube(web.id)).state === "stopped" ? true : undefined), { timeoutMs: 15_000 });
  const printed = await fx.cli(["cube", "ssh", "web", ...FAST], { env: { XDG_CONFIG_HOME: fx.cwd } });
  expect(printed.stderr).toContain('Note: cube "web" is stopped: this command connects once it runs (`cubeform cube wake web`).');
  const exec = await fx.cli(["cube", "ssh", "web", "--exec", ...FAST], { env: { XDG_CONFIG_HOME: fx.cwd } });
  expect(exec.exitCode).toBe(1);
  expect(exec.stderr).toBe('Error: cube "web" is stopped: ssh cannot reach it; start it with `cubeform cube wake web --wait`\n');
});

test("a plan the rate limit does not slow down says no wait, not 'at least 0 s'", async ({ fx }) => {
  const plan = await fx.cli(["plan", ...FAST]);
  expect(plan.stdout).toContain("8 API mutations; within the rate limit (1000/60s), no wait.");
  expect(plan.stdout).not.toContain("at least 0 s");
  const slow = await fx.cli(["plan", "--rate-limit", "2/60"]);
  expect(slow.stdout).toMatch(/8 API mutations; the rate limit \(2\/60s\) makes this take at least [\d.]+ s\./);
});
