/** Pieces of plans for the status page's tests and bench (no test runner here: the bench imports it). */
import type { Plan, ResourceChange } from "../../engine/index.js";

/** A change to cube `cubeName` (id `id-NAME` unless given), each field going from 1 to 2. */
export function change(
  cubeName: string,
  action: ResourceChange["action"] = "update",
  fields: string[] = ["resources.vcpu"],
  id = `id-${cubeName}`,
): ResourceChange {
  return {
    address: `cube/${cubeName}`,
    kind: "cube",
    cubeName,
    id: action === "create" ? null : id,
    action,
    changes: fields.map((path) => ({ path, before: 1, after: 2, forcesReplace: false })),
  };
}

/** A plan's cost in euros a month, before and after, under a budget it keeps to. */
export function costOf(before: number, after: number, monthlyBudget: number): Plan["cost"] {
  const priced = { currency: "EUR", hoursPerMonth: 730, stoppedBills: "disk", note: "", tiers: [] };
  return {
    ...priced,
    before,
    after,
    delta: after - before,
    cubes: [],
    budget: { monthly: monthlyBudget, over: false },
  } as unknown as Plan["cost"];
}
