/** `cubeform/provider`: Pulumi dynamic resources for Cubes, domains, TCP mappings, webhooks, and a whole desired-state file (Fleet). */
export type * from "./types.js";
export * from "./resources.js";
export { Fleet, type FleetArgs } from "./fleet.js";
