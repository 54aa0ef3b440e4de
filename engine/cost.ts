/**
 * What a plan does to the fleet's monthly cost, from the API's live prices (GET /pricing). Pure:
 * prices + the fleet before and after → figures. A cube is billed per hour for its vCPUs, GB of
 * RAM and GB of disk, times the multiplier of the tier its own vCPU count falls in (as the API
 * prices a cube's costPerHour); a stopped cube as the API's note says.
 */
import type { Pricing } from "../schema/api.js";
import { EngineError } from "./errors.js";
import { powerSide } from "./compare.js";
import type { Budget, KnownCost, ObservedState, PlanCost, Step } from "./types.js";

/** 365 × 24 / 12, unless the API's note names the hours it bills a month. */
export const HOURS_PER_MONTH = 730;
/** How many of the cubes that add the most an over-budget plan names. */
const TOP_CUBES = 3;

export interface FleetCube {
  /** null: created by the plan. */
  id: string | null;
  name: string;
  resources: { vcpu: number; ramGb: number; diskGb: number };
  stopped: boolean;
}

/** The budget refuses the plan: it adds cost above the budget, or (with a budget) its cost cannot be known. */
export const isOverBudget = (cost: PlanCost | undefined): boolean =>
  cost !== undefined && ("before" in cost ? cost.budget?.over === true : cost.blocked === true);

/** A month is 28 to 31 days: a note naming hours outside this is not a month's billing. */
const MONTH_HOURS = { min: 28 * 24, max: 31 * 24 };

/**
 * Why these prices cannot price a fleet, or undefined. Rates and multipliers must be positive and finite (a zero or negative
 * one makes any fleet look free or cheaper), the hours of a month a month's; totals are checked once computed (1e308 overflows).
 */
export function implausiblePricing(pricing: Pricing, hoursPerMonth: number): string | undefined {
  for (const [name, rate] of Object.entries(pricing.rates)) {
    if (!(Number.isFinite(rate) && rate > 0)) return `rates.${name} is ${rate}, not a positive price`;
  }
  for (const tier of pricing.tiers) {
    if (!(Number.isFinite(tier.multiplier) && tier.multiplier > 0))
      return `the multiplier of tier ${JSON.stringify(tier.label)} is ${tier.multiplier}, not a positive factor`;
  }
  if (!(hoursPerMonth >= MONTH_HOURS.min && hoursPerMonth <= MONTH_HOURS.max))
    return `the note bills ${hoursPerMonth} hours a month (a month has ${MONTH_HOURS.min}-${MONTH_HOURS.max})`;
  return undefined;
}

/** Prices that cannot be trusted: the cost is unknown, and a budget blocks unless the caller allows an unknown cost. */
export class ImplausiblePricingError extends EngineError {
  constructor(message: string) {
    super("implausible_pricing", message);
  }
}

/** The steps that change what the fleet costs. */
const FLEET_STEPS: ReadonlySet<Step["op"]> = new Set(["create-cube", "delete-cube", "power-off", "wake"]);

export function fleetBefore(observed: ObservedState): FleetCube[] {
  return observed.cubes.map(({ cube }) => ({
    id: cube.id,
    name: cube.name,
    resources: cube.resources,
    stopped: powerSide(cube.state) === "stopped",
  }));
}

/** The fleet once the steps are carried out; a blocked change has none and leaves its cube as it is. */
export function fleetAfter(before: FleetCube[], steps: readonly Step[]): FleetCube[] {
  if (!steps.some((step) => FLEET_STEPS.has(step.op))) return before;
  const fleet = new Map(before.map((cube) => [cube.id as string, cube]));
  for (const step of steps) {
    if (step.op === "create-cube")
      fleet.set(`+${step.cube.cubeName}`, { id: null, name: step.cube.cubeName, resources: step.body.resources, stopped: false });
    else if (step.op === "delete-cube") fleet.delete(step.cube.cubeId);
    else if (step.op === "power-off" || step.op === "wake") {
      const key = step.cube.cubeId ?? `+${step.cube.cubeName}`;
      const cube = fleet.get(key);
      if (cube !== undefined) fleet.set(key, { ...cube, stopped: step.op === "power-off" });
    }
  }
  return [...fleet.values()];
}

/**
 * `listed`: the cubes `cubes[]` names (a --target plan: the targeted ones, as its changes); the totals count every cube.
 */
export function planCost(
  pricing: Pricing,
  before: FleetCube[],
  after: FleetCube[],
  budget?: Budget,
  listed?: ReadonlySet<string>,
): KnownCost {
  const hoursPerMonth = Number(/(\d+(?:\.\d+)?)\s*(?:h|hours)\s*(?:per|a|\/)\s*month/i.exec(pricing.note)?.[1] ?? HOURS_PER_MONTH);
  const implausible = implausiblePricing(pricing, hoursPerMonth);
  if (implausible !== undefined) throw new ImplausiblePricingError(`implausible prices from GET /pricing: ${implausible}`);
  // Anything else is counted in full: the higher figure, so a budget is never under-counted.
  const stoppedBills = /\bruntime\b|disk[^.;]*\b(exists|stopped)\b/i.test(pricing.note) ? "disk" : "all";
  const tierOf = tiersByVcpu(pricing.tiers);
  const { vcpuPerHour, ramGbPerHour, diskGbPerHour } = pricing.rates;
  const monthly = (cube: FleetCube): number => {
    const r = cube.resources;
    const hourly = r.diskGb * diskGbPerHour + (cube.stopped && stoppedBills === "disk" ? 0 : r.vcpu * vcpuPerHour + r.ramGb * ramGbPerHour);
    return hourly * (tierOf(r.vcpu)?.multiplier ?? 1) * hoursPerMonth;
  };
  const byName = new Map<string, { before: number | null; after: number | null }>();
  // The fleet after the plan by vCPU count, in the order they first appear: the tiers are counted from it.
  const afterByVcpu = new Map<number, number>();
  const total = (fleet: FleetCube[], side: "before" | "after" | "both"): number => {
    let sum = 0;
    // Indexed, not for…of: this runs once per cube, before V8 optimizes it.
    for (let i = 0; i < fleet.length; i++) {
      const cube = fleet[i] as FleetCube;
      const cost = monthly(cube);
      sum += cost;
      if (side !== "before") afterByVcpu.set(cube.resources.vcpu, (afterByVcpu.get(cube.resources.vcpu) ?? 0) + 1);
      if (listed !== undefined && !listed.has(cube.name)) continue;
      const entry = byName.get(cube.name) ?? { before: null, after: null };
      if (side !== "after") entry.before = (entry.before ?? 0) + cost;
      if (side !== "before") entry.after = (entry.after ?? 0) + cost;
      byName.set(cube.name, entry);
    }
    return sum;
  };
  // A plan that changes no cube's cost (fleetAfter answers the same fleet) prices each cube once.
  const totalBefore = total(before, after === before ? "both" : "before");
  const totalAfter = after === before ? totalBefore : total(after, "after");
  // forEach, not destructuring entries: this runs once per cube, before V8 optimizes it.
  const cubes: KnownCost["cubes"] = [];
  byName.forEach((e, name) =>
    cubes.push({
      name,
      before: cents(e.before),
      after: cents(e.after),
      delta: e.before === e.after ? 0 : cents((e.after ?? 0) - (e.before ?? 0)),
    }),
  );
  const tiers = new Map<string, KnownCost["tiers"][number]>();
  afterByVcpu.forEach((count, vcpu) => {
    const tier = tierOf(vcpu) ?? { label: "no tier", multiplier: 1 };
    const seen = tiers.get(tier.label);
    if (seen === undefined) tiers.set(tier.label, { label: tier.label, multiplier: tier.multiplier, cubes: count });
    else seen.cubes += count;
  });
  if (!Number.isFinite(totalBefore) || !Number.isFinite(totalAfter))
    throw new ImplausiblePricingError(`implausible prices from GET /pricing: the fleet's monthly cost comes to ${totalAfter}`);
  const cost: KnownCost = {
    currency: pricing.currency,
    hoursPerMonth,
    stoppedBills,
    note: pricing.note,
    tiers: [...tiers.values()],
    before: cents(totalBefore),
    after: cents(totalAfter),
    delta: cents(totalAfter - totalBefore),
    cubes,
  };
  if (budget !== undefined) {
    // A change that lowers the cost is never blocked, even when the fleet stays over the budget.
    const over = cost.delta > 0 && cost.after > budget.monthly;
    cost.budget = {
      monthly: budget.monthly,
      over,
      ...(over
        ? {
            top: cubes
              .filter((c) => c.delta > 0)
              .sort((a, b) => b.delta - a.delta)
              .slice(0, TOP_CUBES)
              .map((c) => c.name),
          }
        : {}),
    };
  }
  return cost;
}

/** The tier a vCPU count falls in, looked up once per count: a fleet has thousands of cubes and few sizes. */
function tiersByVcpu(tiers: Pricing["tiers"]): (vcpu: number) => Pricing["tiers"][number] | undefined {
  const known = new Map<number, Pricing["tiers"][number] | undefined>();
  return (vcpu) => {
    if (known.has(vcpu)) return known.get(vcpu);
    const tier = tiers.find((t) => vcpu >= t.minVcpus && (t.maxVcpus === null || vcpu <= t.maxVcpus));
    known.set(vcpu, tier);
    return tier;
  };
}

/** Rounded to cents, half up, through a finer rounding first (0.0065 × 730 is 4.7449999… in binary). */
function cents<T extends number | null>(value: T): T {
  return (value === null ? null : Math.round(Math.round(value * 1e7) / 1e5) / 100) as T;
}
