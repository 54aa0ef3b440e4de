/** Issue 22 items 13 and 14: the cost of a plan from the live prices, and the budget. */
import { expect, test } from "vitest";
import { fleetAfter, planCost, type FleetCube, type Step } from "../../engine/index.js";
/** The emulator's prices: 1–4 vCPU ×1, 5–16 ×0.9, 17+ ×0.8; "billed per hour of runtime; disk is billed while the Cube exists". */
import { PRICING } from "../../emulator/resources/catalog.js";

const cube = (name: string, vcpu: number, ramGb: number, diskGb: number, stopped = false, id: string | null = `id-${name}`): FleetCube => ({
  id,
  name,
  resources: { vcpu, ramGb, diskGb },
  stopped,
});

test("item 13: each cube is priced at the tier of its own vCPU count, × 730 h; a stopped cube bills its disk only, as the note says", () => {
  const small = cube("small", 2, 4, 20); // 0.017/h
  const mid = cube("mid", 8, 16, 40); // 0.066/h × 0.9
  const big = cube("big", 20, 64, 100); // 0.213/h × 0.8
  const cost = planCost(PRICING, [], [small, mid, big, cube("cold", 2, 4, 20, true)]);
  expect(cost.cubes).toEqual([
    { name: "small", before: null, after: 12.41, delta: 12.41 },
    { name: "mid", before: null, after: 43.36, delta: 43.36 },
    { name: "big", before: null, after: 124.39, delta: 124.39 },
    { name: "cold", before: null, after: 0.73, delta: 0.73 },
  ]);
  expect(cost).toMatchObject({ currency: "EUR", hoursPerMonth: 730, stoppedBills: "disk", before: 0, after: 180.89, delta: 180.89 });
  expect(cost.tiers).toEqual([
    { label: "Standard", multiplier: 1, cubes: 2 },
    { label: "Volume", multiplier: 0.9, cubes: 1 },
    { label: "Scale", multiplier: 0.8, cubes: 1 },
  ]);
});

test("item 13: the note decides the hours of a month and what a stopped cube bills; without a word on it, all of it", () => {
  const cost = planCost({ ...PRICING, note: "Invoices count 720 hours per month." }, [], [cube("cold", 2, 4, 20, true)]);
  expect(cost).toMatchObject({ hoursPerMonth: 720, stoppedBills: "all", after: 12.24 });
});

test("item 13: the fleet after the steps: creates added, deletes gone, power switched; a blocked change (no steps) leaves its cube as it is", () => {
  const before = [cube("web", 1, 1, 10), cube("db", 1, 1, 10), cube("old", 2, 2, 20)];
  const ref = (name: string, id: string | null = `id-${name}`) => ({ cubeName: name, cubeId: id });
  const body = (name: string, vcpu: number) => ({
    name,
    image: "ubuntu-24.04",
    sshPublicKey: "k",
    resources: { vcpu, ramGb: 2, diskGb: 20 },
  });
  const steps: Step[] = [
    { op: "power-off", address: "cube/db", cube: ref("db") },
    // "old" is replaced: the new one is created stopped.
    { op: "delete-cube", address: "cube/old", cube: ref("old") as { cubeName: string; cubeId: string } },
    { op: "create-cube", address: "cube/old", cube: ref("old", null), body: body("old", 8) },
    { op: "power-off", address: "cube/old", cube: ref("old", null) },
    { op: "create-cube", address: "cube/new", cube: ref("new", null), body: body("new", 2) },
  ];
  const after = fleetAfter(before, steps);
  expect(after.map((c) => [c.name, c.resources.vcpu, c.stopped])).toEqual([
    ["web", 1, false],
    ["db", 1, true],
    ["old", 8, true],
    ["new", 2, false],
  ]);
  const cost = planCost(PRICING, before, after);
  expect(cost.cubes.find((c) => c.name === "db")).toEqual({ name: "db", before: 4.75, after: 0.37, delta: -4.38 });
  expect(cost.delta).toBe(Math.round((cost.after - cost.before) * 100) / 100);
});

test("item 14: a change that adds cost above the budget is over it, naming the 3 cubes that add the most; one that lowers the cost never is", () => {
  const before = [cube("web", 1, 1, 10), cube("db", 2, 4, 20)];
  const after = [
    ...before,
    cube("a", 8, 16, 40, false, null),
    cube("b", 1, 1, 10, false, null),
    cube("c", 2, 2, 20, false, null),
    cube("d", 1, 1, 10, true, null),
  ];
  const over = planCost(PRICING, before, after, { monthly: 50 });
  expect(over.budget).toEqual({ monthly: 50, over: true, top: ["a", "c", "b"] });
  expect(planCost(PRICING, before, after, { monthly: 100 }).budget).toEqual({ monthly: 100, over: false });
  // Over the budget before and after, but cheaper: not blocked.
  const lower = planCost(PRICING, before, [before[0]!, { ...before[1]!, stopped: true }], { monthly: 5 });
  expect(lower.after).toBeGreaterThan(5);
  expect(lower.budget).toEqual({ monthly: 5, over: false });
});

test("a --target plan names only its targeted cubes in cubes[]; its totals, tiers and budget still count every cube", () => {
  const before = [cube("web", 1, 1, 10), cube("db", 2, 4, 20), cube("old", 8, 16, 40)];
  const after = [before[0]!, { ...before[1]!, stopped: true }, before[2]!, cube("new", 20, 64, 100, false, null)];
  const whole = planCost(PRICING, before, after, { monthly: 50 });
  const targeted = planCost(PRICING, before, after, { monthly: 50 }, new Set(["new", "db"]));
  expect(targeted.cubes).toEqual(whole.cubes.filter((c) => c.name === "new" || c.name === "db"));
  const { cubes: _w, ...wholeRest } = whole;
  const { cubes: _t, ...targetedRest } = targeted;
  expect(targetedRest).toEqual(wholeRest);
  expect(targeted.budget).toEqual({ monthly: 50, over: true, top: ["new"] });
});
