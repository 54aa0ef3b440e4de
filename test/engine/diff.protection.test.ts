import { describe, expect, test } from "vitest";
import { diff } from "../../engine/index.js";
import { cube, desired, live, observed, spec } from "./fixtures.js";

describe("diff: termination protection", () => {
  test("protection is patched only when the value differs (never a no-op PATCH)", () => {
    const on = cube("web", { terminationProtection: true });
    expect(diff(desired([spec("web", { terminationProtection: true })]), observed([live(on)])).steps).toEqual([]);
    expect(diff(desired([spec("web")]), observed([live(on)])).steps).toEqual([]);
    const off = cube("web");
    expect(diff(desired([spec("web", { terminationProtection: false })]), observed([live(off)])).steps).toEqual([]);
    const plan = diff(desired([spec("web", { terminationProtection: true })]), observed([live(off)]));
    expect(plan.steps).toEqual([{ op: "set-protection", address: "cube/web", cube: { cubeName: "web", cubeId: off.id }, value: true }]);
    expect(plan.changes[0]).toMatchObject({
      action: "update",
      changes: [{ path: "terminationProtection", before: false, after: true, forcesReplace: false }],
    });
  });

  test("a protected cube is never replaced while the file keeps it protected", () => {
    for (const terminationProtection of [undefined, true]) {
      const plan = diff(
        desired([spec("db", { image: "debian-13", terminationProtection })]),
        observed([live(cube("db", { terminationProtection: true }))]),
        { allowReplace: true },
      );
      expect(plan.changes[0]?.blocked).toEqual({
        code: "termination_protected",
        reason:
          'cube "db" has terminationProtection on; set terminationProtection: false in the file (or unprotect it) before replacing it (image cannot change in place)',
      });
      expect(plan.steps).toEqual([]);
    }
  });

  test("terminationProtection: false in the file unprotects first, then the replacement may go ahead", () => {
    const db = cube("db", { terminationProtection: true });
    const plan = diff(desired([spec("db", { image: "debian-13", terminationProtection: false })]), observed([live(db)]), {
      allowReplace: true,
    });
    expect(plan.changes[0]?.blocked).toBeUndefined();
    expect(plan.steps.map((s) => s.op)).toEqual(["set-protection", "delete-cube", "wait-deleted", "create-cube", "wait-running"]);
    expect(plan.steps[0]).toMatchObject({ value: false, cube: { cubeId: db.id } });
    const create = plan.steps[3];
    expect(create?.op === "create-cube" && create.body).not.toHaveProperty("terminationProtection");
  });

  test("ignoreChanges terminationProtection means a false in the file does not unprotect", () => {
    const plan = diff(
      desired([
        spec("db", {
          image: "debian-13",
          terminationProtection: false,
          lifecycle: { allowReplace: true, ignoreChanges: ["terminationProtection"] },
        }),
      ]),
      observed([live(cube("db", { terminationProtection: true }))]),
    );
    expect(plan.changes[0]?.blocked?.code).toBe("termination_protected");
  });

  test("turning protection on comes after the other changes of the cube; turning it off comes first", () => {
    const a = cube("a");
    const b = cube("b", { terminationProtection: true });
    const plan = diff(
      desired([spec("a", { terminationProtection: true, power: "stopped" }), spec("b", { terminationProtection: false })]),
      observed([live(a), live(b)]),
    );
    expect(plan.steps.map((s) => `${s.op} ${s.address}`)).toEqual(["set-protection cube/b", "power-off cube/a", "set-protection cube/a"]);
  });
});
