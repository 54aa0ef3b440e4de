/**
 * Step order. Phases: (1) unprotect; (2) sub-resource deletions, so a hostname or port can
 * move; (3) cube deletions (a replacement waits for its old cube to be gone, names stay
 * unambiguous); (4) cube creations; (5) per cube: SSH port, domain patches and attaches,
 * ports; (6) power, protect; (7) wait for cubes to run; (8) webhook endpoints last, so the
 * events of the changes above do not reach an endpoint that is about to be replaced.
 */
import type { Step, StepOp } from "./types.js";

export function stepPhase(step: Step): number {
  switch (step.op) {
    case "set-protection":
      return step.value ? 6 : 1;
    case "detach-domain":
    case "delete-port":
      return 2;
    case "delete-cube":
    case "wait-deleted":
      return 3;
    case "create-cube":
      return 4;
    case "set-ssh-port":
    case "patch-domain":
    case "attach-domain":
    case "create-port":
      return 5;
    case "wake":
    case "power-off":
      return 6;
    case "wait-running":
      return 7;
    case "delete-webhook":
    case "create-webhook":
      return 8;
  }
}

/** Order of ops within one phase of one cube. */
const OP_RANK: Record<StepOp, number> = {
  "set-protection": 1,
  "detach-domain": 0,
  "delete-port": 1,
  "delete-cube": 0,
  "wait-deleted": 1,
  "create-cube": 0,
  "set-ssh-port": 0,
  "patch-domain": 1,
  "attach-domain": 2,
  "create-port": 3,
  wake: 0,
  "power-off": 0,
  "wait-running": 0,
  "delete-webhook": 0,
  "create-webhook": 1,
};

/** A step and the position of its cube in the plan (steps of one cube stay together within a phase). */
export interface GroupedStep {
  step: Step;
  group: number;
}

export function orderSteps(items: GroupedStep[]): Step[] {
  return items
    .map((item, index) => ({ ...item, index }))
    .sort((a, b) => stepPhase(a.step) - stepPhase(b.step) || a.group - b.group || OP_RANK[a.step.op] - OP_RANK[b.step.op] || a.index - b.index)
    .map((item) => item.step);
}
