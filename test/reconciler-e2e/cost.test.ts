/** Issue 22 item 13: the cost of a plan from GET /pricing, over loopback HTTP. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { APPLY, RATE, describeRun, plainFleet, project } from "./support.js";

/** 8 vCPU: the Volume tier (×0.9), 43.36 EUR a month. */
const BIG = `  - name: big\n    resources: { vcpu: 8, ramGb: 16, diskGb: 40 }\n`;
const PLAN = ["plan", ...RATE];
/** A text line as one line again, however the output's width wrapped it. */
const unwrapped = (text: string): string => text.replace(/\n {2}/g, " ");

test("item 13: plan, apply and drift show what the change does to the monthly cost and the fleet's total; JSON per cube, as the API prices its cubes", async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web", "db") });
  const created = await p.run(APPLY);
  expect(created.code, describeRun(created)).toBe(0);
  expect(unwrapped(created.stdout)).toContain("Cost: +9.49 EUR/month (fleet 0.00 → 9.49 EUR/month; 730 h/month, tier by cube vCPUs: Standard ×1 (2 cubes), stopped cubes bill disk only)");
  // The fleet before, as the API's own hourly price of each cube says.
  const live = await p.api.listCubes();
  expect(live.reduce((sum, cube) => sum + (cube.costPerHour ?? 0) * 730, 0)).toBeCloseTo(9.49, 2);

  writeFileSync(join(p.cwd, "cubeform.yaml"), `${plainFleet("web", "db").replace("  - name: db\n", "  - name: db\n    power: stopped\n")}${BIG}`);
  p.emu.admin.clearRequests();
  const plan = await p.run(PLAN);
  expect(plan.code, describeRun(plan)).toBe(2);
  expect(unwrapped(plan.stdout)).toContain(
    "Cost: +38.98 EUR/month (fleet 9.49 → 48.47 EUR/month; 730 h/month, tier by cube vCPUs: Standard ×1 (2 cubes), Volume ×0.9 (1 cube), stopped cubes bill disk only)",
  );
  for (const line of plan.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
  // One more read, beside the others.
  expect(p.emu.admin.requests().filter((r) => r.path.endsWith("/pricing"))).toHaveLength(1);

  const json = JSON.parse((await p.run([...PLAN, "--format", "json"])).stdout) as { cost: Record<string, unknown> };
  expect(json.cost).toMatchObject({ currency: "EUR", hoursPerMonth: 730, stoppedBills: "disk", before: 9.49, after: 48.47, delta: 38.98 });
  expect(json.cost.cubes).toEqual([
    { name: "web", before: 4.75, after: 4.75, delta: 0 },
    { name: "db", before: 4.75, after: 0.37, delta: -4.38 },
    { name: "big", before: null, after: 43.36, delta: 43.36 },
  ]);
  const markdown = await p.run([...PLAN, "--format", "markdown"]);
  expect(markdown.stdout).toContain("Cost\\: \\+38\\.98 EUR/month \\(fleet 9\\.49 → 48\\.47 EUR/month;");

  const drift = await p.run(["drift", ...RATE]);
  expect(drift.code).toBe(2);
  expect(unwrapped(drift.stdout)).toContain("Cost: +38.98 EUR/month (fleet 9.49 → 48.47 EUR/month;");
});

test("item 13: when GET /pricing fails the plan still works, says the cost is unknown, and warns once", async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web") });
  p.emu.admin.injectFault({ kind: "status", status: 404, method: "GET", path: "/pricing$", times: 10 });
  const plan = await p.run(PLAN);
  expect(plan.code, describeRun(plan)).toBe(2);
  expect(plan.stdout).toContain("Plan: 1 to add, 0 to change, 0 to destroy.");
  expect(unwrapped(plan.stdout)).toMatch(/Cost: unknown \(GET \/pricing failed: .*404.*\)\./);
  expect(plan.stderr.match(/warning: the cost of this plan is unknown/g)).toHaveLength(1);
});
