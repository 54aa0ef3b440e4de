import { describe, expect, test } from "vitest";
import { diff, type DesiredPortSpec } from "../../engine/index.js";
import { cube, desired, live, mapping, observed, spec, sshMapping } from "./fixtures.js";

const web = cube("web");

function planFor(
  ports: DesiredPortSpec[] | undefined,
  tcpMappings = [sshMapping(web.id), mapping(web.id, 5432, { allow: ["10.0.0.0/8", "1.2.3.4/32"], label: "pg" })],
) {
  return diff(desired([spec("web", { ports })]), observed([live(web, { tcpMappings })]));
}

describe("diff: TCP ports", () => {
  test("a missing port is created with udp and allow always explicit", () => {
    const plan = planFor([{ cubePort: 80, udp: true, allow: [] }], [sshMapping(web.id)]);
    expect(plan.steps).toEqual([
      {
        op: "create-port",
        address: "cube/web/port/80",
        cube: { cubeName: "web", cubeId: web.id },
        body: { cubePort: 80, udp: true, allow: [] },
      },
    ]);
    expect(JSON.stringify(plan.steps)).not.toContain("whitelistIps");
  });

  test("extra live mappings are deleted, but never the SSH mapping", () => {
    const plan = planFor([]);
    expect(plan.steps).toEqual([
      { op: "delete-port", address: "cube/web/port/5432", cube: { cubeName: "web", cubeId: web.id }, mappingId: `tcp-${web.id}-5432` },
    ]);
    expect(plan.changes.map((c) => c.address)).toEqual(["cube/web", "cube/web/port/5432"]);
  });

  test("the whitelist is a set: order does not matter", () => {
    expect(planFor([{ cubePort: 5432, udp: true, allow: ["1.2.3.4/32", "10.0.0.0/8"], label: "pg" }]).steps).toEqual([]);
  });

  test("an undeclared label is not managed", () => {
    expect(planFor([{ cubePort: 5432, udp: true, allow: ["1.2.3.4/32", "10.0.0.0/8"] }]).steps).toEqual([]);
  });

  test.each<[string, Partial<DesiredPortSpec>]>([
    ["udp", { udp: false }],
    ["allow", { allow: ["10.0.0.0/8"] }],
    ["label", { label: "postgres" }],
  ])("a %s difference replaces the mapping: delete, then create", (path, override) => {
    const plan = planFor([{ cubePort: 5432, udp: true, allow: ["1.2.3.4/32", "10.0.0.0/8"], label: "pg", ...override }]);
    expect(plan.changes[1]).toMatchObject({ action: "delete-then-create", changes: [{ path, forcesReplace: true }] });
    expect(plan.steps.map((s) => s.op)).toEqual(["delete-port", "create-port"]);
  });
});
