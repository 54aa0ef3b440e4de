/**
 * Issue 34, item 5: an admin setting (loopback only, like the other knobs) makes cubes created from a named image end in state `error`,
 * or never reach `running`, so a rollout's revert can be shown; other images boot as before.
 */
import { request } from "node:http";
import { expect } from "vitest";
import { test } from "../support/emulator.js";

async function setFault(origin: string, body: unknown, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(
      `${origin}/__emulator/image-fault`,
      { method: "POST", headers: { "content-type": "application/json", ...(host ? { host } : {}) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

test("cubes of an image set to fail end in state error; other images still run; clearing it boots that image again", async ({
  emu,
  api,
}) => {
  expect(await setFault(emu.origin, { image: "debian-13", fault: "error" })).toBe(200);
  const bad = await api.createCube({ name: "bad", image: "debian-13" });
  const good = await api.createCube({ name: "good", image: "ubuntu-24.04" });
  await api.waitForState(bad.id, "error");
  await api.waitForState(good.id, "running");

  expect(await setFault(emu.origin, { image: "debian-13", fault: null })).toBe(200);
  const fixed = await api.createCube({ name: "fixed", image: "debian-13" });
  await api.waitForState(fixed.id, "running");
});

test("never-running: the cube stays booting however long the clock runs", async ({ emu, api }) => {
  emu.admin.setImageFault("debian-13", "never-running");
  const stuck = await api.createCube({ name: "stuck", image: "debian-13" });
  await api.waitForState(stuck.id, "booting");
  emu.admin.advanceClock(3_600_000);
  expect((await api.call("GET", `/cubes/${stuck.id}`)).body.cube.state).toBe("booting");
});

test("the setting answers only loopback Host headers and refuses what it does not know", async ({ emu }) => {
  expect(await setFault(emu.origin, { image: "debian-13", fault: "error" }, "evil.example.com")).toBe(421);
  expect(await setFault(emu.origin, { image: "debian-13", fault: "slow" })).toBe(400);
});
