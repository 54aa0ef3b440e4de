import { describe, expect, test } from "vitest";
import { executeStep, type ExecContext, type Step } from "../../engine/index.js";
import { fakeClient, fakeClock, type FakeClient } from "./fake-client.js";

const ref = { cubeName: "web", cubeId: "c1" };

function context(client: FakeClient, extra: Partial<ExecContext> = {}): ExecContext {
  const clock = fakeClock();
  return {
    client,
    spaceId: "space-1",
    secrets: () => undefined,
    cubeIds: new Map(),
    waitTimeoutMs: 10_000,
    pollIntervalMs: 1_000,
    now: clock.now,
    sleep: clock.sleep,
    ...extra,
  };
}

const mutations = (client: FakeClient) => client.calls.filter((c) => !c.startsWith("get"));

describe("executors: waits and power", () => {
  test("wait-running polls until running", async () => {
    const client = fakeClient();
    client.states.set("c1", ["pending", "booting", "running"]);
    const outcome = await executeStep({ op: "wait-running", address: "cube/web", cube: ref }, context(client));
    expect(outcome.status).toBe("done");
    expect(client.calls).toEqual(["getCube c1", "getCube c1", "getCube c1"]);
  });

  test("wait-running fails at once when the cube is in state error", async () => {
    const client = fakeClient();
    client.states.set("c1", ["booting", "error"]);
    const outcome = await executeStep({ op: "wait-running", address: "cube/web", cube: ref }, context(client));
    expect(outcome).toMatchObject({ status: "failed", error: { code: "cube_error" } });
    expect(outcome.error?.message).toContain('cube "web" (c1) is in state error');
    expect(client.calls).toHaveLength(2);
  });

  test("wait-running gives up at the deadline, naming the cube, its state and the deadline", async () => {
    const client = fakeClient();
    client.states.set("c1", ["booting"]);
    const clock = fakeClock();
    const outcome = await executeStep(
      { op: "wait-running", address: "cube/web", cube: ref },
      context(client, { now: clock.now, sleep: clock.sleep, waitTimeoutMs: 5_000 }),
    );
    expect(outcome.error).toEqual({
      code: "wait_timeout",
      message: 'cube "web" (c1) is still booting after 5s of waiting for it to be running (deadline 2026-01-01T00:00:05.000Z)',
    });
    expect(clock.elapsed()).toBe(5_000);
  });

  test("power-off of a cube that is still booting waits for it to run, then powers it off once", async () => {
    const client = fakeClient();
    client.states.set("c1", ["pending", "booting", "running"]);
    expect((await executeStep({ op: "power-off", address: "cube/web", cube: ref }, context(client))).status).toBe("done");
    expect(mutations(client)).toEqual(["powerOff c1"]);
  });

  test("power-off of a cube created in the same apply finds its id by name", async () => {
    const client = fakeClient();
    client.states.set("new-web", ["running"]);
    const ctx = context(client, { cubeIds: new Map([["web", "new-web"]]) });
    await executeStep({ op: "power-off", address: "cube/web", cube: { cubeName: "web", cubeId: null } }, ctx);
    expect(mutations(client)).toEqual(["powerOff new-web"]);
  });

  test("a cube created earlier in the apply that has no id fails clearly", async () => {
    const outcome = await executeStep({ op: "wake", address: "cube/web", cube: { cubeName: "web", cubeId: null } }, context(fakeClient()));
    expect(outcome.error?.code).toBe("unknown_cube");
  });

  test("wake waits for a stopping cube to stop", async () => {
    const client = fakeClient();
    client.states.set("c1", ["stopping", "stopped"]);
    await executeStep({ op: "wake", address: "cube/web", cube: ref }, context(client));
    expect(client.calls).toEqual(["getCube c1", "getCube c1", "wake c1"]);
  });

  test("wait-deleted is done when the cube is gone (404)", async () => {
    const client = fakeClient();
    const step: Step = { op: "wait-deleted", address: "cube/web", cube: ref };
    expect((await executeStep(step, context(client))).status).toBe("done");
  });

  test("an API error keeps its code in the outcome", async () => {
    const client = fakeClient();
    const { ApiFailure } = await import("./fake-client.js");
    client.failures.set("deleteCube c1", new ApiFailure("termination_protected", "This Cube has termination protection on."));
    const outcome = await executeStep({ op: "delete-cube", address: "cube/web", cube: ref }, context(client));
    expect(outcome).toMatchObject({ status: "failed", error: { code: "termination_protected" } });
  });
});
