/**
 * `cubeform/provider`: Pulumi dynamic resources for Cubes, their domains, TCP mappings and
 * webhooks (resources.ts), and a whole desired-state file as one component (fleet.ts).
 */
export type * from "./types.js";
export * from "./resources.js";
export { Fleet, type FleetArgs } from "./fleet.js";
