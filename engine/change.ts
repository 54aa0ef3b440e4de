/** Building ResourceChanges: field lists, actions and blocked marks. */
import { KNOWN_AFTER_APPLY } from "./compare.js";
import type { Action, CubeRef, FieldChange, ResourceChange, Step } from "./types.js";

export type View = Record<string, unknown>;

export type ChangeBase = Pick<ResourceChange, "address" | "kind" | "cubeName" | "id">;

/** One resource's change and the steps that carry it out. */
export interface ResourcePlan {
  change: ResourceChange;
  steps: Step[];
}

/**
 * A domain's or port's ResourceChange, always one literal with its keys in this order. Not `{ ...base, action, … }`: past a few thousand calls V8 gives each
 * object spread there a hidden class of its own (~300 bytes of shape per change; 50,000 changes at 10,000 cubes).
 */
export function resourceChange(
  base: ChangeBase,
  action: Action,
  before: View | null,
  after: View | null,
  changes: FieldChange[],
): ResourceChange {
  return { address: base.address, kind: base.kind, cubeName: base.cubeName, id: base.id, action, before, after, changes };
}

/**
 * A plain noop (not blocked, not unmanaged) without its two equal views, which no output shows (every plan, saved or printed:
 * ~9 MB at 10,000 cubes); other changes as they are.
 */
export function withoutNoopBodies(change: ResourceChange): ResourceChange {
  if (change.action !== "noop" || change.blocked !== undefined || change.unmanaged) return change;
  // Lean already (diff makes noops so): no copy, which is most of rendering a large in-sync plan.
  if (!("before" in change) && !("after" in change)) return change;
  const { before: _before, after: _after, ...rest } = change;
  // A noop has no field changes: one shared empty list instead of 50,000 at 10,000 cubes.
  if (rest.changes.length === 0) rest.changes = NO_FIELD_CHANGES;
  return rest;
}
const NO_FIELD_CHANGES = Object.freeze([]) as unknown as FieldChange[];

export function fieldChange(path: string, before: unknown, after: unknown, forcesReplace = false): FieldChange {
  return { path, before: before ?? null, after: after ?? null, forcesReplace };
}

/** Every field of a view as created (before null) or destroyed (after null); nested objects are flattened one level. */
export function viewFields(view: View, side: "created" | "destroyed"): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [key, value] of Object.entries(view)) {
    if (key === "id") continue;
    const nested = value !== null && typeof value === "object" && !Array.isArray(value);
    const members: [string, unknown][] = nested ? Object.entries(value as View).map(([k, v]) => [`${key}.${k}`, v]) : [[key, value]];
    for (const [path, member] of members) {
      changes.push(side === "created" ? fieldChange(path, null, member) : fieldChange(path, member, null));
    }
  }
  return changes;
}

/** A domain or port that only the file declares: created. */
export function createdPlan(base: ChangeBase, after: View, create: Step): ResourcePlan {
  return { change: resourceChange(base, "create", null, after, viewFields(after, "created")), steps: [create] };
}

/** A domain or port that only the space has: deleted, with nothing to send when its cube goes in this apply. */
export function deletedPlan(base: ChangeBase, before: View, remove: Step, cubeDeleted = false): ResourcePlan {
  return { change: resourceChange(base, "delete", before, null, viewFields(before, "destroyed")), steps: cubeDeleted ? [] : [remove] };
}

/** The replacement a live domain or port needs to end up on `cube`: its cube is replaced, or it is another cube. */
export function cubeMoveChange(liveCubeId: string, cube: CubeRef, cubeDeleted = false): FieldChange | undefined {
  if (cubeDeleted) return fieldChange("cubeId", liveCubeId, KNOWN_AFTER_APPLY, true);
  if (cube.cubeId !== null && cube.cubeId !== liveCubeId) return fieldChange("cubeId", liveCubeId, cube.cubeId, true);
  return undefined;
}

export function replacePaths(change: ResourceChange): string[] {
  return change.changes.filter((c) => c.forcesReplace).map((c) => c.path);
}
