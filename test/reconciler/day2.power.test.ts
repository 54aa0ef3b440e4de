/**
 * `cubeform cube power-off|wake|restart` are safe to repeat: when the state the command asks
 * for already holds, it says so and exits 0, sending nothing.
 */
import { describe, expect } from "vitest";
import { waitFor } from "../support/wait.js";
import { FAST, test, type CliFixture } from "./support/fixtures.js";
import { SSH_KEY } from "./support/cli.js";

async function cubeIn(fx: CliFixture, name: string, state: "running" | "stopped") {
  const created = await fx.api.createCube(
    { name, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: `create-${name}` },
  );
  const settled = async (wanted: string) =>
    waitFor(async () => ((await fx.api.getCube(created.id)).state === wanted ? true : undefined), { timeoutMs: 15_000 });
  await settled("running");
  if (state === "stopped") {
    await fx.api.powerOff(created.id);
    await settled("stopped");
  }
  return created;
}

const powerRequests = (fx: CliFixture) =>
  fx.emulator.admin.requests().filter((r) => r.method === "POST" && /\/(power-off|wake|restart)$/.test(r.path));

describe("power commands whose state already holds", () => {
  test("power-off of a stopped cube: already stopped, exit 0, nothing sent", async ({ fx }) => {
    await cubeIn(fx, "web", "stopped");
    const sent = powerRequests(fx).length;
    const run = await fx.cli(["cube", "power-off", "web", ...FAST]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('Cube "web" is already stopped.\n');
    expect(powerRequests(fx).length).toBe(sent);
  });

  test("wake of a running cube: already running, exit 0, nothing sent; json still prints the cube", async ({ fx }) => {
    const web = await cubeIn(fx, "web", "running");
    const run = await fx.cli(["cube", "wake", "web", "--format", "json", ...FAST]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('Cube "web" is already running.\n');
    expect(JSON.parse(run.stdout)).toMatchObject({ id: web.id, state: "running" });
    expect(powerRequests(fx)).toEqual([]);
  });

  test("restart of a stopped cube starts it (as systemctl restart does) and says so", async ({ fx }) => {
    const web = await cubeIn(fx, "web", "stopped");
    const run = await fx.cli(["cube", "restart", "web", "--wait", "--interval", "20ms", ...FAST]);
    expect(run.stderr).toMatch(/web: (booting|running)/);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Cube "web" is stopped: waking it instead of restarting.');
    expect(run.stdout).toContain('Cube "web" is running.');
    expect(powerRequests(fx).map((r) => r.path.split("/").pop())).toEqual(["power-off", "wake"]);
    expect((await fx.api.getCube(web.id)).state).toBe("running");
  });
});
