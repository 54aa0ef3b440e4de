import { describe, expect } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import { test, type Api } from "../support/emulator.js";

/**
 * Sends `action` with the clock at real speed: accepted (200), and the cube is booting right after
 * (`whileBooting` runs before that is checked); then the clock runs fast until the cube is running.
 */
async function expectBootsAfter(api: Api, emu: RunningEmulator, id: string, action: "wake" | "restart", whileBooting = async () => {}) {
  emu.admin.setClockSpeed(1);
  expect((await api.call("POST", `/cubes/${id}/${action}`)).status).toBe(200);
  await whileBooting();
  expect((await api.call("GET", `/cubes/${id}`)).body.cube.state).toBe("booting");
  emu.admin.setClockSpeed(1000);
  await api.waitForState(id, "running");
}

describe("power state machine", () => {
  test("power-off: running → stopping → stopped; a second power-off is 409", async ({ api, emu }) => {
    const cube = await api.runningCube();
    emu.admin.setClockSpeed(1);
    expect((await api.call("POST", `/cubes/${cube.id}/power-off`)).body).toEqual({ success: true });
    expect((await api.call("GET", `/cubes/${cube.id}`)).body.cube.state).toBe("stopping");
    emu.admin.setClockSpeed(1000);
    await api.waitForState(cube.id, "stopped");
    const again = await api.call("POST", `/cubes/${cube.id}/power-off`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/stopped/);
  });

  test("wake: stopped → booting → running; waking a running cube is 409", async ({ api, emu }) => {
    const cube = await api.runningCube();
    expect((await api.call("POST", `/cubes/${cube.id}/wake`)).status).toBe(409);
    await api.call("POST", `/cubes/${cube.id}/power-off`);
    await api.waitForState(cube.id, "stopped");
    await expectBootsAfter(api, emu, cube.id, "wake");
  });

  test("restart needs a running cube and refuses a concurrent restart with 409", async ({ api, emu }) => {
    emu.admin.setClockSpeed(1);
    const pending = await api.createCube();
    expect((await api.call("POST", `/cubes/${pending.id}/restart`)).status).toBe(409);
    emu.admin.setClockSpeed(200);
    await api.waitForState(pending.id, "running");
    await expectBootsAfter(api, emu, pending.id, "restart", async () => {
      const second = await api.call("POST", `/cubes/${pending.id}/restart`);
      expect(second.status).toBe(409);
      expect(second.body.error).toMatch(/restart/i);
    });
  });

  test("transitions follow the emulated clock: at speed 1 a new cube is still pending right after create", async ({ api, emu }) => {
    emu.admin.setClockSpeed(1);
    const cube = await api.createCube();
    expect((await api.call("GET", `/cubes/${cube.id}`)).body.cube.state).toBe("pending");
    emu.admin.setClockSpeed(1000);
    await api.waitForState(cube.id, "running");
  });

  test("transitions are deterministic in emulated time: pending 2 s, booting 3 s, stopping 2 s", async ({ api, emu }) => {
    emu.admin.setClockSpeed(0.001); // real time no longer moves the clock noticeably
    const cube = await api.createCube();
    const state = async () => (await api.call("GET", `/cubes/${cube.id}`)).body.cube.state;
    emu.admin.advanceClock(1_999);
    expect(await state()).toBe("pending");
    emu.admin.advanceClock(2);
    expect(await state()).toBe("booting");
    emu.admin.advanceClock(3_000);
    expect(await state()).toBe("running");
    await api.call("POST", `/cubes/${cube.id}/power-off`);
    emu.admin.advanceClock(1_990);
    expect(await state()).toBe("stopping");
    emu.admin.advanceClock(20);
    expect(await state()).toBe("stopped");
  });
});
