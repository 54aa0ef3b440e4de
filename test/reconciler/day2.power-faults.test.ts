/**
 * Power commands against a busy API (issue 31 items 13 and 14): a 5xx on the power request is
 * resent under its Idempotency-Key; a wake (or restart) sent while the cube is still stopping
 * waits for the transition to end instead of failing with the API's 409.
 */
import { describe, expect } from "vitest";
import { FAST, test, type CliFixture } from "./support/fixtures.js";
import { runningCube } from "./support/cubes.js";

const powerRequests = (fx: CliFixture) =>
  fx.emulator.admin.requests().filter((r) => r.method === "POST" && /\/(power-off|wake|restart)$/.test(r.path));

describe("power requests under 5xx (item 13)", () => {
  test("power-off answered 503 twice is resent with the same Idempotency-Key: exit 0, performed once", async ({ fx }) => {
    const web = await runningCube(fx, "web");
    fx.emulator.admin.injectFault({ kind: "status", status: 503, method: "POST", path: "/power-off$", times: 2 });
    const run = await fx.cli(["cube", "power-off", "web", "--yes", "--wait", "--interval", "20ms", ...FAST]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('Cube "web" is stopped.');
    const sent = powerRequests(fx);
    expect(sent.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(sent[0]?.idempotencyKey).toBeTruthy();
    expect((await fx.api.getCube(web.id)).state).toBe("stopped");
  });

  test("wake and restart are resent the same way", async ({ fx }) => {
    await runningCube(fx, "web");
    fx.emulator.admin.injectFault({ kind: "status", status: 500, method: "POST", path: "/restart$", times: 1 });
    expect((await fx.cli(["cube", "restart", "web", "--wait", "--interval", "20ms", ...FAST])).exitCode).toBe(0);
    expect((await fx.cli(["cube", "power-off", "web", "--yes", "--wait", "--interval", "20ms", ...FAST])).exitCode).toBe(0);
    fx.emulator.admin.injectFault({ kind: "status", status: 504, method: "POST", path: "/wake$", times: 1 });
    const wake = await fx.cli(["cube", "wake", "web", "--wait", "--interval", "20ms", ...FAST]);
    expect(wake.exitCode, wake.stderr).toBe(0);
    expect(powerRequests(fx).map((r) => `${r.path.split("/").pop()} ${r.status}`)).toEqual([
      "restart 500",
      "restart 200",
      "power-off 200",
      "wake 504",
      "wake 200",
    ]);
  });
});

describe("a power command during a transition (item 14)", () => {
  test("wake right after power-off waits for stopped, then wakes: exit 0, no 409", async ({ fx }) => {
    const web = await runningCube(fx, "web");
    // Real time: stopping lasts 2 s, so the wake is sent while the cube is stopping.
    fx.emulator.admin.setClockSpeed(1);
    await fx.api.powerOff(web.id);
    expect((await fx.api.getCube(web.id)).state).toBe("stopping");
    const run = await fx.cli(["cube", "wake", "web", ...FAST]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('Cube "web" is stopping: waiting for it to be stopped before waking it.');
    expect(run.stdout).toMatch(/Cube "web" \(cube_\w+\) is waking\./);
    expect(run.stderr).not.toContain("409");
    expect(powerRequests(fx).map((r) => `${r.path.split("/").pop()} ${r.status}`)).toEqual(["power-off 200", "wake 200"]);
    expect(["booting", "running"]).toContain((await fx.api.getCube(web.id)).state);
  });

  test("the wait is bounded by --timeout, and says what to do", async ({ fx }) => {
    const web = await runningCube(fx, "web");
    fx.emulator.admin.setClockSpeed(0.01);
    await fx.api.powerOff(web.id);
    const run = await fx.cli(["cube", "wake", "web", "--timeout", "300ms", "--interval", "50ms", ...FAST]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(
      /cube "web" is still stopping after 300ms; it did not reach stopped; the API accepts a wake only once it is stopped: run the command again later, or give it a longer --timeout/,
    );
    expect(powerRequests(fx).map((r) => r.path.split("/").pop())).toEqual(["power-off"]);
  });
});
