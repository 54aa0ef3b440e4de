import { describe, expect, test } from "vitest";
import type { CubeState } from "../../schema/api.js";
import { diff } from "../../engine/index.js";
import { cube, desired, live, observed, spec, sshMapping } from "./fixtures.js";

function stepsFor(state: CubeState, power: "running" | "stopped") {
  return diff(desired([spec("web", { power })]), observed([live(cube("web", { state }))])).steps.map((s) => s.op);
}

describe("diff: power and SSH port", () => {
  test.each([
    ["running", "stopped", ["power-off"]],
    ["pending", "stopped", ["power-off"]],
    ["booting", "stopped", ["power-off"]],
    ["resizing", "stopped", ["power-off"]],
    ["stopped", "stopped", []],
    ["stopping", "stopped", []],
    ["stopped", "running", ["wake", "wait-running"]],
    ["stopping", "running", ["wake", "wait-running"]],
    ["running", "running", []],
    ["booting", "running", []],
  ] as const)("live %s, desired %s → %j", (state, power, expected) => {
    expect(stepsFor(state, power)).toEqual(expected);
  });

  test("a cube in state error is reported as a power change but gets no power step", () => {
    const plan = diff(desired([spec("web", { power: "running" })]), observed([live(cube("web", { state: "error" }))]));
    expect(plan.changes[0]).toMatchObject({ action: "update", changes: [{ path: "power", before: "error", after: "running" }] });
    expect(plan.steps).toEqual([]);
  });

  test("undeclared power and sshPort are not managed", () => {
    const web = cube("web", { state: "stopped" });
    expect(diff(desired([spec("web")]), observed([live(web, { tcpMappings: [sshMapping(web.id, 2200)] })])).steps).toEqual([]);
  });

  test("the SSH port is read from the isSsh mapping and changed in place", () => {
    const web = cube("web");
    const plan = diff(desired([spec("web", { sshPort: 2222 })]), observed([live(web, { tcpMappings: [sshMapping(web.id, 22)] })]));
    expect(plan.steps).toEqual([{ op: "set-ssh-port", address: "cube/web", cube: { cubeName: "web", cubeId: web.id }, cubePort: 2222 }]);
    expect(plan.changes[0]?.changes).toEqual([{ path: "sshPort", before: 22, after: 2222, forcesReplace: false }]);
  });
});
