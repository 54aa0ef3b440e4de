import { describe, expect, test } from "vitest";
import { diff } from "../../engine/index.js";
import { cube, desired, domain, live, observed, spec } from "./fixtures.js";

const extra = cube("extra");
const db = cube("db", { terminationProtection: true });
const state = observed([live(cube("web")), live(extra, { domains: [domain(extra.id, "x.example.com")] }), live(db)]);

describe("diff: unmanaged cubes and prune", () => {
  test("without prune, undeclared cubes are reported as unmanaged noops", () => {
    const plan = diff(desired([spec("web")]), state);
    expect(plan.changes.filter((c) => c.unmanaged).map((c) => [c.address, c.action])).toEqual([
      ["cube/extra", "noop"],
      ["cube/db", "noop"],
    ]);
    expect(plan.steps).toEqual([]);
    expect(plan.summary.unmanaged).toBe(2);
  });

  test("prune (file or flag) deletes unmanaged cubes, never a protected one, and sends no sub-resource deletions", () => {
    for (const plan of [diff(desired([spec("web")], true), state), diff(desired([spec("web")]), state, { prune: true })]) {
      // The apply waits until the API no longer lists it (deletes are asynchronous).
      expect(plan.steps).toEqual([
        { op: "delete-cube", address: "cube/extra", cube: { cubeName: "extra", cubeId: extra.id } },
        { op: "wait-deleted", address: "cube/extra", cube: { cubeName: "extra", cubeId: extra.id } },
      ]);
      const blocked = plan.changes.find((c) => c.address === "cube/db");
      expect(blocked).toMatchObject({ action: "delete", unmanaged: true });
      expect(blocked?.blocked).toEqual({
        code: "termination_protected",
        reason:
          'cube "db" is not in the file and has terminationProtection on; turn it off first (cubeform cube unprotect db), then prune deletes it',
      });
      expect(plan.summary).toMatchObject({ destroy: 1, blocked: 1, unmanaged: 2 });
      expect(plan.options.prune).toBe(true);
    }
  });

  test("issue 31 item 10: a desired state declaring no cubes prunes nothing (every delete blocked) unless it says allowEmpty", () => {
    for (const plan of [diff(desired([], true), state), diff(desired([]), state, { prune: true })]) {
      expect(plan.steps).toEqual([]);
      expect(plan.changes.map((c) => [c.address, c.action, c.blocked?.code])).toEqual([
        ["cube/web", "delete", "empty_source"],
        ["cube/extra", "delete", "empty_source"],
        ["cube/db", "delete", "empty_source"],
      ]);
      expect(plan.changes[0]?.blocked?.reason).toContain("set allowEmpty: true beside prune: true");
    }
    const allowed = diff({ ...desired([], true), allowEmpty: true }, state);
    expect(allowed.steps.filter((s) => s.op === "delete-cube").map((s) => s.address)).toEqual(["cube/web", "cube/extra"]);
  });

  test("with targets only those cubes are planned and nothing is pruned", () => {
    const plan = diff(desired([spec("web", { power: "stopped" }), spec("new")], true), state, { targets: ["web"] });
    expect(plan.changes.filter((c) => !c.unmanaged).map((c) => c.address)).toEqual(["cube/web"]);
    expect(plan.steps.map((s) => `${s.op} ${s.address}`)).toEqual(["power-off cube/web"]);
  });
});
