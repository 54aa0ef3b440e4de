/**
 * The pure reconcile core. CONTRACT (reconciler/ and provider/ depend on these names):
 *   normalize(doc, files)            → DesiredState
 *   observe(client, options)         → ObservedState
 *   diff(desired, observed, options) → Plan
 *   apply(plan, client, options)     → ApplyResult
 *   per-resource helpers for the Pulumi provider: diffCubeResource, diffDomainResource,
 *   diffPortResource, and the executors (executeStep).
 */
export * from "./types.js";
