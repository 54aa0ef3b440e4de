import { describe, expect, test } from "vitest";
import { diff, type DiffContext, type Plan } from "../../engine/index.js";
import { renderPlan } from "../../reconciler/render/index.js";
import { cube, desired, domain, live, mapping, observed, spec } from "./fixtures.js";

// In sync (a cube, a domain, a port), an update, an unmanaged cube and an ambiguous name (a blocked noop).
const web = cube("web");
const db = cube("db", { state: "stopped" });
const dupA = cube("dup", { id: "cube-dup-a" });
const dupB = cube("dup", { id: "cube-dup-b" });
const old = cube("old");
const space = observed([
  live(web, { domains: [domain(web.id, "app.example.com")], tcpMappings: [mapping(web.id, 5432, { udp: false })] }),
  live(db),
  live(dupA),
  live(dupB),
  live(old),
]);
const file = desired([
  spec("web", { domains: [{ hostname: "app.example.com", port: 8080, settings: {} }], ports: [{ cubePort: 5432, udp: false, allow: [] }] }),
  spec("db", { power: "running" }),
  spec("dup"),
]);

const planWith = (context: DiffContext = {}): Plan => diff(file, space, {}, context);
const ctx = { file: "cubeform.yaml", cubePositions: {}, color: false };

describe("plan: one whole plan for every output", () => {
  test("a plain noop carries no views (they would be equal, no output shows them); blocked and unmanaged ones keep theirs", () => {
    const plan = planWith();
    expect(plan.changes.filter((c) => c.action === "noop").length).toBeGreaterThanOrEqual(4);
    for (const change of plan.changes) {
      const kept = change.action !== "noop" || change.blocked !== undefined || change.unmanaged === true;
      expect("before" in change, change.address).toBe(kept);
    }
    expect(plan.changes.find((c) => c.unmanaged)?.before).toMatchObject({ name: "old" });
    expect(plan.changes.find((c) => c.blocked)?.before).toMatchObject({ name: "dup" });
  });

  test("the prior state and its digest are made when first read, then kept; printing in any format reads neither", () => {
    const plan = planWith();
    for (const format of ["text", "markdown", "github"] as const) renderPlan(plan, format, ctx);
    expect(Object.getOwnPropertyDescriptor(plan, "priorState")?.get).toBeTypeOf("function");
    expect(Object.getOwnPropertyDescriptor(plan, "priorStateDigest")?.get).toBeTypeOf("function");
    const json = JSON.parse(renderPlan(plan, "json", ctx)) as Record<string, unknown>;
    expect(json).not.toHaveProperty("priorState");
    expect(Object.getOwnPropertyDescriptor(plan, "priorState")?.get).toBeTypeOf("function");
    expect(json).not.toHaveProperty("priorStateDigest");
    expect(Object.getOwnPropertyDescriptor(plan, "priorStateDigest")?.get).toBeTypeOf("function");
    expect(plan.priorState?.cubes).toHaveLength(5);
    expect(Object.getOwnPropertyDescriptor(plan, "priorState")?.value).toBe(plan.priorState);
    // A saved plan holds both, as plain values.
    const saved = JSON.parse(JSON.stringify(plan)) as Plan;
    expect(saved.priorStateDigest).toBe(plan.priorStateDigest);
    expect(saved.priorState).toEqual(plan.priorState);
  });

  test("two plans of the same state print the same in every format, whatever was read first", () => {
    const a = planWith();
    const b = planWith();
    void b.priorState;
    for (const format of ["json", "text", "markdown", "github"] as const)
      expect(renderPlan(a, format, ctx), format).toBe(renderPlan(b, format, ctx));
  });
});
