/** Building ResourceChanges: field lists, actions and blocked marks. */
import { sameValue } from "./compare.js";
import type { Action, FieldChange, ResourceChange } from "./types.js";

export type View = Record<string, unknown>;

export type ChangeBase = Pick<ResourceChange, "address" | "kind" | "cubeName" | "id">;

/**
 * A domain's or port's ResourceChange, always one literal with its keys in this order. Not
 * `{ ...base, action, … }`: past a few thousand calls V8 gives each object spread there a
 * hidden class of its own (~300 bytes of shape per change; 50,000 changes at 10,000 cubes).
 */
export function resourceChange(base: ChangeBase, action: Action, before: View | null, after: View | null, changes: FieldChange[]): ResourceChange {
  return { address: base.address, kind: base.kind, cubeName: base.cubeName, id: base.id, action, before, after, changes };
}

/**
 * A change without its views when it changes nothing and is neither blocked nor unmanaged (the
 * two views are equal and no output shows them; `plan --format json` prints such a change
 * without `before` and `after`). Other changes are answered as they are.
 */
export function withoutNoopBodies(change: ResourceChange): ResourceChange {
  if (change.action !== "noop" || change.blocked !== undefined || change.unmanaged) return change;
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

/** The action that a list of field changes of an existing resource calls for. */
export function actionFor(changes: FieldChange[]): Action {
  if (changes.some((change) => change.forcesReplace)) return "delete-then-create";
  return changes.length > 0 ? "update" : "noop";
}

export function differs(before: unknown, after: unknown): boolean {
  return !sameValue(before, after);
}

export function replacePaths(change: ResourceChange): string[] {
  return change.changes.filter((c) => c.forcesReplace).map((c) => c.path);
}
