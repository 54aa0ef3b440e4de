/**
 * Step order. Phases: (1) unprotect; (2) sub-resource deletions, so a hostname or port can move; (3) cube deletions (a replacement waits for its old cube to be
 * gone, names stay unambiguous); (4) cube creations; (5) per cube: SSH port, domain patches and attaches, ports; (6) power, protect; (7) wait for cubes to run, then the rollout batches of groups, one after the other;
 * (8) webhook endpoints last, so the events of the changes above do not reach an endpoint that is about to be replaced.
 */
import type { Step, StepOp } from "./types.js";

/** Each op's phase and its rank among one cube's ops in that phase; set-protection turning protection on is in phase 6 (stepPhase). */
const ORDER: Record<StepOp, { phase: number; rank: number }> = {
  "set-protection": { phase: 1, rank: 1 },
  "detach-domain": { phase: 2, rank: 0 },
  "delete-port": { phase: 2, rank: 1 },
  "delete-cube": { phase: 3, rank: 0 },
  "wait-deleted": { phase: 3, rank: 1 },
  "create-cube": { phase: 4, rank: 0 },
  "set-ssh-port": { phase: 5, rank: 0 },
  "patch-domain": { phase: 5, rank: 1 },
  "attach-domain": { phase: 5, rank: 2 },
  "create-port": { phase: 5, rank: 3 },
  wake: { phase: 6, rank: 0 },
  "power-off": { phase: 6, rank: 0 },
  "wait-running": { phase: 7, rank: 0 },
  "rollout-batch": { phase: 7, rank: 1 },
  "delete-webhook": { phase: 8, rank: 0 },
  "create-webhook": { phase: 8, rank: 1 },
};

export function stepPhase(step: Step): number {
  return step.op === "set-protection" && step.value ? 6 : ORDER[step.op].phase;
}

/** A step and the position of its cube in the plan (steps of one cube stay together within a phase). */
export interface GroupedStep {
  step: Step;
  group: number;
}

export function orderSteps(items: GroupedStep[]): Step[] {
  return items
    .map((item, index) => ({ ...item, index }))
    .sort(
      (a, b) =>
        stepPhase(a.step) - stepPhase(b.step) || a.group - b.group || ORDER[a.step.op].rank - ORDER[b.step.op].rank || a.index - b.index,
    )
    .map((item) => item.step);
}
