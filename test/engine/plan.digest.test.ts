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
      const expected = sha(JSON.stringify({ spaceId, cubes: cubes.map((c) => [c.id, part(JSON.stringify(c))]), ...(webhooks ? { webhooks } : {}) }));
      expect(stateDigest(o)).toBe(expected);
      expect(diff(desired([spec("web")]), o).priorStateDigest).toBe(expected);
    }
  });

  // A cube without domains or mappings (what a --target plan only lists) has its entry written
  // out directly (engine/digest.ts listedOnlyEntry): it must be the definition's, byte for byte.
  test.each([
    ["plain", {}],
    ["in a region, stopped, protected, fractional RAM", { region: "eu-nuremberg", state: "stopped", terminationProtection: true, resources: { vcpu: 3, ramGb: 0.5, diskGb: 15 } }],
    ["error and deleted power sides", { state: "error" }],
    ["a name with quotes and a backslash", { name: 'we"b\\1' }],
    ["a control character and an emoji", { name: "tab\there", image: "ubuntu-😀" }],
    ["a lone surrogate", { region: "eu-\ud800" }],
    ["a projection over 256 characters", { name: "n".repeat(200) }],
  ] as [string, Partial<Parameters<typeof cube>[1]>][])("a listed-only cube's part is the definition's: %s", (_what, overrides) => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const part = (json: string) => (json.length <= 256 ? json : sha(json));
    const o = observed([live(cube("web", overrides), { domains: [], tcpMappings: [] }), live(cube("db", { region: "x" }), { domains: [], tcpMappings: [] })]);
    const { spaceId, cubes } = projectState(o);
    expect(stateDigest(o)).toBe(sha(JSON.stringify({ spaceId, cubes: cubes.map((c) => [c.id, part(JSON.stringify(c))]) })));
  });

  test.each([
    [256, undefined],
    [257, undefined],
    [256, "eu-nuremberg"],
    [257, "eu-nuremberg"],
  ])("a listed-only cube's part is the definition's for a projection of %i characters (region %s)", (length, region) => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const bare = (name: string) => live(cube(name, { id: "cube-w", ...(region === undefined ? {} : { region }) }), { domains: [], tcpMappings: [] });
    const base = JSON.stringify(projectState(observed([bare("w")])).cubes[0]).length;
    const o = observed([bare(`w${"n".repeat(length - base)}`)]);
    const { spaceId, cubes } = projectState(o);
    const json = JSON.stringify(cubes[0]);
    expect(json.length).toBe(length);
    expect(stateDigest(o)).toBe(sha(JSON.stringify({ spaceId, cubes: [[cubes[0]?.id, length <= 256 ? json : sha(json)]] })));
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
    expect((error as StalePlanError).differences).toEqual(['cube "new" (cube-new) appeared', 'cube "web": image changed from "ubuntu-24.04" to "debian-13"']);
  });
});
