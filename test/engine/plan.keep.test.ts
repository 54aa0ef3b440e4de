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

const planWith = (context: DiffContext): Plan => diff(file, space, {}, context);
const ctx = { file: "cubeform.yaml", cubePositions: {}, color: false };
const PRINTED_ONLY: DiffContext = { keep: { noopBodies: false, priorState: false } };

describe("plan: what a plan keeps", () => {
  test("by default every change has its views and the plan its prior state", () => {
    const plan = planWith({});
    expect(plan.changes.filter((c) => c.action === "noop").length).toBeGreaterThanOrEqual(4);
    for (const change of plan.changes) {
      expect(change).toHaveProperty("before");
      expect(change).toHaveProperty("after");
    }
    expect(plan.priorState?.cubes).toHaveLength(5);
  });

  test("a plan that is only printed drops the views of plain noops and the prior state, and prints exactly the same", () => {
    const full = planWith({});
    const lean = planWith(PRINTED_ONLY);
    expect(lean).not.toHaveProperty("priorState");
    expect(lean.priorStateDigest).toBe(full.priorStateDigest);
    expect(lean.steps).toEqual(full.steps);
    expect(lean.summary).toEqual(full.summary);
    expect(lean.changes).toHaveLength(full.changes.length);
    lean.changes.forEach((change, i) => {
      const kept = change.action !== "noop" || change.blocked !== undefined || change.unmanaged === true;
      expect("before" in change, change.address).toBe(kept);
      const { before: _b, after: _a, ...rest } = full.changes[i]!;
      expect(change).toEqual(kept ? full.changes[i] : rest);
    });
    // The unmanaged cube and the ambiguous name keep their views.
    expect(lean.changes.find((c) => c.unmanaged)?.before).toMatchObject({ name: "old" });
    expect(lean.changes.find((c) => c.blocked)?.before).toMatchObject({ name: "dup" });
    for (const format of ["json", "text", "markdown", "github"] as const) {
      expect(renderPlan(lean, format, ctx), format).toBe(renderPlan(full, format, ctx));
    }
  });

  test("a plan printed as text, markdown or GitHub annotations has no digest to make (none shows it), and prints exactly the same", () => {
    const full = planWith({});
    const printed = planWith({ keep: { noopBodies: false, priorState: false, digest: false } });
    expect(printed).not.toHaveProperty("priorStateDigest");
    expect(printed.steps).toEqual(full.steps);
    for (const format of ["text", "markdown", "github"] as const) {
      expect(renderPlan(printed, format, ctx), format).toBe(renderPlan(full, format, ctx));
    }
  });
});
