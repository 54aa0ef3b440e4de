import { describe, expect, test } from "vitest";
import { diff } from "../../engine/index.js";
import { cube, desired, live, observed, spec } from "./fixtures.js";

describe("diff: identity", () => {
  test("two live cubes with the declared name and no id: blocked as ambiguous, never a guess", () => {
    const plan = diff(
      desired([spec("web", { image: "debian-13" })]),
      observed([live(cube("web", { id: "c1" })), live(cube("web", { id: "c2" }))]),
      { prune: true, allowReplace: true },
    );
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({ address: "cube/web", blocked: { code: "ambiguous_name" } });
    expect(plan.changes[0]?.blocked?.reason).toContain("c1, c2");
    expect(plan.steps).toEqual([]);
    expect(plan.summary.blocked).toBe(1);
  });

  test("an id pins one of several cubes with the same name; the other is unmanaged", () => {
    const plan = diff(
      desired([spec("web", { id: "c2", power: "stopped" })]),
      observed([live(cube("web", { id: "c1" })), live(cube("web", { id: "c2" }))]),
    );
    expect(plan.changes.map((c) => [c.address, c.id, c.action, c.unmanaged ?? false])).toEqual([
      ["cube/web[c2]", "c2", "update", false],
      ["cube/web[c1]", "c1", "noop", true],
    ]);
    expect(plan.steps).toEqual([{ op: "power-off", address: "cube/web[c2]", cube: { cubeName: "web", cubeId: "c2" } }]);
  });

  test("a pinned id that no longer exists while a cube of that name does is blocked, not re-created", () => {
    const plan = diff(desired([spec("web", { id: "gone" })]), observed([live(cube("web", { id: "c1" }))]));
    expect(plan.changes[0]?.blocked?.code).toBe("ambiguous_name");
    expect(plan.steps).toEqual([]);
  });

  test("cubes in state deleted are ignored", () => {
    const plan = diff(desired([spec("web")]), observed([live(cube("web", { id: "old", state: "deleted" }))]));
    expect(plan.changes[0]?.action).toBe("create");
  });
});
