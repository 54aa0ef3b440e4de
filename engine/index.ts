/**
 * The pure reconcile core. CONTRACT (reconciler/ and provider/ depend on these names):
 *   observe(client, options)                 → ObservedState
 *   diff(desired, observed, options)         → Plan
 *   apply(plan, options)                     → ApplyResult
 *   per-resource planning for the Pulumi provider: planCubeResource, planDomainResource,
 *   planPortResource; the executors: executeStep, runSteps.
 */
export * from "./types.js";
export * from "./errors.js";
export { diff, diffAsRead, type DiffAsRead, type DiffContext } from "./diff.js";
export { buildPlan, estimatePacedSeconds, resolvePlanOptions, summarize, DEFAULT_RATE_LIMIT } from "./plan.js";
export { stateDigest, checkPlanIsCurrent, projectState, describeDifferences } from "./digest.js";
export { stepPhase, orderSteps } from "./phases.js";
export { cubeAddress, domainAddress, portAddress, webhookAddress } from "./address.js";
export { canonical, sameValue, sameSet, powerSide, SENSITIVE, KNOWN_AFTER_APPLY, type PowerSide } from "./compare.js";
export { replacePaths, withoutNoopBodies } from "./change.js";
export {
  DEFAULT_SSH_PORT,
  cubeFieldChanges,
  createCubeBody,
  deleteCubeSteps,
  liveCubeView,
  desiredCubeView,
  sshMapping,
  planCube,
  type CubePlan,
  type CubePlanInput,
} from "./cube-rules.js";
export { domainSettingChanges, planDomain, type DomainPlanInput } from "./domain-rules.js";
export { portFieldChanges, planPort, type PortPlanInput } from "./port-rules.js";
export { createWebhookBody, planWebhook, planWebhooks, liveWebhookView, webhookFieldChanges, type WebhookPlan } from "./webhook-rules.js";
export { matchCubes, type CubeMatch, type CubeMatching } from "./identity.js";
export {
  planCubeResource,
  planDomainResource,
  planPortResource,
  type ResourcePlan,
  type CubeResourceInput,
  type DomainResourceInput,
  type PortResourceInput,
} from "./resources.js";
export { observe, type ObserveOptions } from "./observe.js";
export { executeStep, cubeIdOf, type ExecContext } from "./execute.js";
export { apply, runSteps, type ApplyOptions, type RunOptions, type RunResult } from "./apply.js";
export { memoryJournal, bodyDigest } from "./journal.js";
export { waitForCube, type WaitSpec } from "./wait.js";
export { fleetAfter, fleetBefore, isOverBudget, planCost, HOURS_PER_MONTH, type FleetCube } from "./cost.js";
export {
  applyOverrides,
  checkCubeInputs,
  checkPortInputs,
  evaluatePolicies,
  policyBlocks,
  blocksApply,
  globPattern,
  groupOf,
  isPreviewName,
  type CubeInputs,
  type ExistingViolations,
  type PolicyInput,
  type PolicyOverride,
  type PolicyReport,
  type PolicyRule,
  type PolicyViolation,
  type SourcedRule,
} from "./policy.js";
export { cutRefusedChanges, markRefused, refusedOf, type PolicyCut } from "./policy-cut.js";
export { runRolloutBatch } from "./rollout.js";
export { DEFAULT_ROLLOUT_TIMING, type RolloutTiming } from "./rollout-plan.js";
export { probeMember, expandPlaceholders, type HealthProbe, type ProbeResult, type ProbeTarget } from "./health.js";
export { memberName, memberIndex, memberHostname, memberInput, memberNameIssues, groupIssues, groupSpec } from "./replicas.js";
export { errorCode, ignoreNotFound, isNotFound, type RolloutPhase } from "./context.js";
export {
  findPreviews,
  previewDesiredState,
  previewIdOf,
  previewIdProblem,
  previewMonthly,
  previewName,
  sweepSelection,
  withOthersClaimed,
  PreviewError,
  type LiveCube,
  type LivePreview,
  type SweepSelection,
} from "./preview.js";
