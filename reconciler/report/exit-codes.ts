/** What a plan or drift check exits with: 0 in sync, 2 with changes (1 with --fail-on policy and a mandatory violation). */
import type { Plan } from "../../engine/types.js";
import { isOverBudget, policyBlocks } from "../../engine/index.js";
import { hasChanges } from "../render/values.js";

export const EXIT_IN_SYNC = 0;
export const EXIT_CHANGES = 2;
/** --fail-on policy: a mandatory policy violation fails a CI step. */
export const EXIT_POLICY = 1;

export function exitCodeOf(plan: Plan, failOn: "changes" | "blocked" | "policy" = "changes"): number {
  if (failOn === "policy") return policyBlocks(plan).length > 0 ? EXIT_POLICY : EXIT_IN_SYNC;
  if (failOn === "blocked") return plan.changes.some((change) => change.blocked) || isOverBudget(plan.cost) ? EXIT_CHANGES : EXIT_IN_SYNC;
  return hasChanges(plan) ? EXIT_CHANGES : EXIT_IN_SYNC;
}
