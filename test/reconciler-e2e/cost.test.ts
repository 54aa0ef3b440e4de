/** Issue 22 items 13 and 14: the cost of a plan from GET /pricing, and the file's budget, over loopback HTTP. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { APPLY, RATE, SSH_KEY, describeRun, plainFleet, project } from "./support.js";

/** 8 vCPU: the Volume tier (×0.9), 43.36 EUR a month. */
const BIG = `  - name: big\n    resources: { vcpu: 8, ramGb: 16, diskGb: 40 }\n`;
const PLAN = ["plan", ...RATE];
/** A text line as one line again, however the output's width wrapped it. */
const unwrapped = (text: string): string => text.replace(/\n {2}/g, " ");

test("item 13: plan, apply and drift show what the change does to the monthly cost and the fleet's total; JSON per cube, as the API prices its cubes", async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web", "db") });
  const created = await p.run(APPLY);
  expect(created.code, describeRun(created)).toBe(0);
  expect(unwrapped(created.stdout)).toContain(
    "Cost: +9.49 EUR/month (fleet 0.00 → 9.49 EUR/month; 730 h/month, tier by cube vCPUs: Standard ×1 (2 cubes), stopped cubes bill disk only)",
  );
  // The fleet before, as the API's own hourly price of each cube says.
  const live = await p.api.listCubes();
  expect(live.reduce((sum, cube) => sum + (cube.costPerHour ?? 0) * 730, 0)).toBeCloseTo(9.49, 2);

  writeFileSync(
    join(p.cwd, "cubeform.yaml"),
    `${plainFleet("web", "db").replace("  - name: db\n", "  - name: db\n    power: stopped\n")}${BIG}`,
  );
  p.emu.admin.clearRequests();
  const plan = await p.run(PLAN);
  expect(plan.code, describeRun(plan)).toBe(2);
  expect(unwrapped(plan.stdout)).toContain(
    "Cost: +38.98 EUR/month (fleet 9.49 → 48.47 EUR/month; 730 h/month, tier by cube vCPUs: Standard ×1 (2 cubes), Volume ×0.9 (1 cube), stopped cubes bill disk only)",
  );
  // An SSH key is one value, never split (issue 22 item 9); every other line fits.
  for (const line of plan.stdout.split("\n").filter((l) => !l.includes("sshPublicKey:"))) expect(line.length).toBeLessThanOrEqual(80);
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
  expect(markdown.stdout).toContain("Cost: +38.98 EUR/month (fleet 9.49 → 48.47 EUR/month;");

  const drift = await p.run(["drift", ...RATE]);
  expect(drift.code).toBe(2);
  expect(unwrapped(drift.stdout)).toContain("Cost: +38.98 EUR/month (fleet 9.49 → 48.47 EUR/month;");
});

test("item 13: when GET /pricing fails the plan still works, says the cost is unknown, and warns once", async () => {
  const p = await project({ "cubeform.yaml": `${plainFleet("web")}budget: { monthly: 1 }\n` });
  p.emu.admin.injectFault({ kind: "status", status: 404, method: "GET", path: "/pricing$", times: 10 });
  const plan = await p.run(PLAN);
  expect(plan.code, describeRun(plan)).toBe(2);
  expect(plan.stdout).toContain("Plan: 1 to add, 0 to change, 0 to destroy.");
  expect(unwrapped(plan.stdout)).toMatch(/Cost: unknown \(GET \/pricing failed: .*404.*\)\./);
  expect(plan.stderr.match(/warning: the cost of this plan is unknown/g)).toHaveLength(1);
  // Issue 31 item 11: with a budget set, a cost that cannot be known blocks (--allow-unknown-cost goes ahead knowingly).
  expect(unwrapped(plan.stdout)).toContain("Blocked by the budget: the change may add cost and its cost cannot be known");
  expect((await p.run(APPLY)).code).toBe(1);
  const applied = await p.run([...APPLY, "--allow-unknown-cost"]);
  expect(applied.code, describeRun(applied)).toBe(0);
  expect(applied.stdout + applied.stderr).toContain("the budget (1/month) is not checked");
});

test("item 14: over the budget, plan reports the change as blocked (exit 2, also with --fail-on blocked) and apply refuses it, naming the cubes that add the most", async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web", "db") });
  expect((await p.run(APPLY)).code).toBe(0);
  writeFileSync(join(p.cwd, "cubeform.yaml"), `${plainFleet("web", "db", "extra")}${BIG}budget: { monthly: 20 }\n`);
  p.emu.admin.clearRequests();

  const plan = await p.run(PLAN);
  expect(plan.code, describeRun(plan)).toBe(2);
  const blocked =
    "Blocked by the budget: the change adds 48.11 EUR/month and brings the fleet to 57.60 EUR/month, over the budget of 20.00 EUR/month (budget.monthly); the cubes that add the most: big +43.36, extra +4.75.";
  expect(unwrapped(plan.stdout)).toContain(blocked);
  expect((await p.run([...PLAN, "--fail-on", "blocked"])).code).toBe(2);
  const github = await p.run([...PLAN, "--format", "github"]);
  expect(github.stdout).toMatch(/^::error file=cubeform\.yaml,line=\d+,col=\d+::Blocked by the budget: .*big \+43\.36/m);
  const json = JSON.parse((await p.run([...PLAN, "--format", "json"])).stdout) as { cost: { budget: unknown } };
  expect(json.cost.budget).toEqual({ monthly: 20, over: true, top: ["big", "extra"] });

  const refused = await p.run(APPLY);
  expect(refused.code, describeRun(refused)).toBe(1);
  expect(refused.stderr).toContain("Error: refusing to apply: the change adds 48.11 EUR/month");
  expect(refused.stderr).toContain(
    "the cubes that add the most: big +43.36, extra +4.75; lower those cubes, or raise budget.monthly in the file",
  );
  expect((await p.run([...PLAN, "--out", "plan.json"])).code).toBe(2);
  const saved = await p.run([...APPLY, "plan.json"]);
  expect(saved.code, describeRun(saved)).toBe(1);
  expect(saved.stderr).toContain("refusing to apply: the change adds 48.11 EUR/month");
  const watched = await p.run(["watch", "--apply", "--once", ...RATE]);
  expect(watched.code, describeRun(watched)).toBe(0);
  expect(unwrapped(watched.stdout)).toContain("the cubes that add the most: big +43.36, extra +4.75.");
  expect(p.mutations()).toBe(0);

  // Decided: a change that lowers the cost is never blocked, even when the fleet stays over the budget.
  writeFileSync(
    join(p.cwd, "cubeform.yaml"),
    `${plainFleet("web", "db").replace("  - name: db\n", "  - name: db\n    power: stopped\n")}budget: { monthly: 5 }\n`,
  );
  const lower = await p.run([...PLAN, "--fail-on", "blocked"]);
  expect(lower.code, describeRun(lower)).toBe(0);
  expect(unwrapped(lower.stdout)).toContain("Cost: -4.38 EUR/month (fleet 9.49 → 5.11 EUR/month, over the budget of 5.00;");
  expect(lower.stdout).not.toContain("Blocked");
  expect((await p.run(APPLY)).code).toBe(0);
});

test("item 14: the budget key is checked like the others, at its line", async () => {
  const p = await project({
    "cubeform.yaml": `${plainFleet("web")}budget:\n  monthly: -5\n`,
    "typo.yaml": `${plainFleet("web")}budget: { montly: 5 }\n`,
    "a.yaml": `${plainFleet("a")}budget: { monthly: 100 }\n`,
    "b.yaml": `apiVersion: cubeform/v1\ncubes:\n  - name: b\n    image: ubuntu-24.04\n    resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n    sshPublicKey: ${SSH_KEY}\nbudget: { monthly: 200 }\n`,
  });
  const negative = await p.run(["validate"]);
  expect(negative.code).toBe(1);
  expect(negative.stderr).toMatch(/cubeform\.yaml:9:12: budget\.monthly: .*0/);
  const typo = await p.run(["validate", "-f", "typo.yaml"]);
  expect(typo.stderr).toMatch(/typo\.yaml:8:11: budget: unknown key "montly" \(did you mean "monthly"\?\)/);
  const two = await p.run(["validate", "-f", "a.yaml", "-f", "b.yaml"]);
  expect(two.code).toBe(1);
  expect(two.stderr).toMatch(/b\.yaml:7:\d+: budget\.monthly 200 differs from 100 in a\.yaml: the files of one run have one budget/);
});
