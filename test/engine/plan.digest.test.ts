import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { checkPlanIsCurrent, diff, projectState, StalePlanError, stateDigest } from "../../engine/index.js";
import { cube, desired, domain, live, mapping, observed, spec } from "./fixtures.js";

function state(overrides: Parameters<typeof cube>[1] = {}, port = 5432) {
  const c = cube("web", overrides);
  return observed([live(c, { domains: [domain(c.id, "app.example.com")], tcpMappings: [mapping(c.id, port)] }), live(cube("db"))]);
}

describe("plan: prior-state digest", () => {
  test("is stable across order, timestamps and transient states on the same side of the power switch", () => {
    const a = state();
    const b = state({ state: "booting", updatedAt: "2030-01-01T00:00:00Z", terminationProtectionChangedAt: "2030-01-01T00:00:00Z" });
    b.cubes.reverse();
    b.observedAt = "2030-01-01T00:00:00Z";
    b.reads = 99;
    expect(stateDigest(b)).toBe(stateDigest(a));
    expect(stateDigest(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  test("is sha256 of {spaceId, each cube's id and part in id order, webhooks}, a part being the projection's JSON up to 256 characters, else its sha256", () => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const part = (json: string) => (json.length <= 256 ? json : sha(json));
    for (const o of [state(), observed([]), { ...state(), webhooks: [] }, observed([live(cube("bare"), { tcpMappings: [] })])]) {
      const { spaceId, cubes, webhooks } = projectState(o);
      const expected = sha(
        JSON.stringify({ spaceId, cubes: cubes.map((c) => [c.id, part(JSON.stringify(c))]), ...(webhooks ? { webhooks } : {}) }),
      );
      expect(stateDigest(o)).toBe(expected);
      expect(diff(desired([spec("web")]), o).priorStateDigest).toBe(expected);
    }
  });

  describe("a --target plan depends on the cubes it plans, and on which others exist", () => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const part = (json: string) => (json.length <= 256 ? json : sha(json));
    const definition = (o: ReturnType<typeof observed>, targets: string[]) => {
      const { spaceId, cubes } = projectState(o, targets);
      return sha(JSON.stringify({ spaceId, cubes: cubes.map((c) => [c.id, part(JSON.stringify(c))]) }));
    };
    const space = (overrides: Parameters<typeof cube>[1] = {}, extra: ReturnType<typeof live>[] = []) =>
      observed([
        live(cube("web"), { domains: [domain("cube-web", "app.example.com")], tcpMappings: [mapping("cube-web", 5432)] }),
        live(cube("db", overrides), { domains: [], tcpMappings: [] }),
        ...extra,
      ]);

    test("the cubes it does not name are projected as their id and name", () => {
      const { cubes } = projectState(space(), ["web"]);
      expect(cubes.map((c) => Object.keys(c).length)).toEqual([2, 10]);
      expect(cubes[0]).toEqual({ id: "cube-db", name: "db" });
    });

    // Their entries are written out (engine/digest.ts identityEntry): byte for byte the definition's.
    test.each([
      ["plain names", "db"],
      ["a name with quotes and a backslash", 'd"b\\1'],
      ["a control character and an emoji", "tab\there😀"],
      ["a lone surrogate", "x\ud800"],
      ["a name too long for its own part", "n".repeat(300)],
    ])("its digest is the definition's: %s", (_what, name) => {
      const o = observed([live(cube("web")), live(cube(name, { id: "cube-other" }), { domains: [], tcpMappings: [] })]);
      expect(stateDigest(o, ["web"])).toBe(definition(o, ["web"]));
      expect(diff(desired([spec("web")]), o, { targets: ["web"] }).priorStateDigest).toBe(definition(o, ["web"]));
    });

    test("a saved --target plan stays current when an untargeted cube's state changes, and not when the targeted cube, a name or the set of cubes does", () => {
      const saved = JSON.parse(JSON.stringify(diff(desired([spec("web"), spec("db")]), space(), { targets: ["web"] })));
      expect(() => checkPlanIsCurrent(saved, space({ state: "stopped", image: "debian-13", terminationProtection: true }))).not.toThrow();
      const webChanged = space();
      webChanged.cubes[0]!.cube.image = "debian-13";
      expect(() => checkPlanIsCurrent(saved, webChanged)).toThrow(/cube "web": image changed/);
      expect(() => checkPlanIsCurrent(saved, space({ name: "db2" }))).toThrow(/cube "db" \(cube-db\) is now named "db2"/);
      expect(() => checkPlanIsCurrent(saved, space({}, [live(cube("new"))]))).toThrow(/cube "new" \(cube-new\) appeared/);
    });

    test("a --target plan saved with its untargeted cubes in full is compared by what it depends on", () => {
      const saved = JSON.parse(JSON.stringify(diff(desired([spec("web"), spec("db")]), space(), { targets: ["web"] })));
      saved.priorState = projectState(space());
      saved.priorStateDigest = "made by an earlier version";
      expect(() => checkPlanIsCurrent(saved, space({ state: "stopped" }))).not.toThrow();
    });
  });

  test.each([
    ["image", state({ image: "debian-13" })],
    ["protection", state({ terminationProtection: true })],
    ["power side", state({ state: "stopped" })],
    ["a port", state({}, 6000)],
  ])("changes when %s changes", (_what, changed) => {
    expect(stateDigest(changed)).not.toBe(stateDigest(state()));
  });

  test("a plan saved by a version that digested the state otherwise is current while its prior state is", () => {
    const saved = JSON.parse(JSON.stringify(diff(desired([spec("web")]), state())));
    saved.priorStateDigest = createHash("sha256").update(JSON.stringify(saved.priorState)).digest("hex");
    expect(() => checkPlanIsCurrent(saved, state())).not.toThrow();
    expect(() => checkPlanIsCurrent(saved, state({ image: "debian-13" }))).toThrow(StalePlanError);
  });

  test("a saved plan is refused once the space changed, naming what changed", () => {
    const plan = diff(desired([spec("web")]), state());
    const saved = JSON.parse(JSON.stringify(plan));
    expect(() => checkPlanIsCurrent(saved, state())).not.toThrow();
    const later = state({ image: "debian-13" });
    later.cubes.push(live(cube("new")));
    let error: unknown;
    try {
      checkPlanIsCurrent(saved, later);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StalePlanError);
    expect((error as StalePlanError).code).toBe("stale_plan");
    expect((error as StalePlanError).differences).toEqual([
      'cube "new" (cube-new) appeared',
      'cube "web": image changed from "ubuntu-24.04" to "debian-13"',
    ]);
  });
});
