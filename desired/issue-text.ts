/** The words of a problem the schema finds: where it is ("cubes[0].image: "), and what is allowed there instead. */
import { $ZodArray, $ZodDefault, $ZodNullable, $ZodObject, $ZodOptional, type $ZodType } from "zod/v4/core";
import { visible } from "./errors.js";
import { didYouMean } from "./suggest.js";

export type IssuePath = readonly (string | number | symbol)[];

/** The keys the schema allows in the object at `path` (array indexes and wrappers stepped through). */
export function knownKeysAt(schema: $ZodType, path: IssuePath): string[] {
  let node: $ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (node instanceof $ZodArray) node = unwrap(node._zod.def.element);
    else if (node instanceof $ZodObject && typeof segment === "string") node = unwrap(node._zod.def.shape[segment]);
    else node = undefined;
    if (node instanceof $ZodArray && typeof segment === "number") continue;
  }
  return node instanceof $ZodObject ? Object.keys(node._zod.def.shape) : [];
}

function unwrap(schema: $ZodType | undefined): $ZodType | undefined {
  let node = schema;
  while (node instanceof $ZodOptional || node instanceof $ZodNullable || node instanceof $ZodDefault) node = node._zod.def.innerType;
  return node;
}

/** " (did you mean …?)", else the keys allowed there when they are few. */
export function unknownKeyHint(key: string, known: string[]): string {
  const suggestion = didYouMean(key, known);
  if (suggestion !== "" || known.length === 0) return suggestion;
  return known.length <= 8 ? `; allowed here: ${known.join(", ")}` : "";
}

/** An enum longer than this (webhook events: 45) is not listed in a message: the closest value is named. */
export const MAX_VALUES_LISTED = 8;

export function longEnumMessage(got: unknown, allowed: string[]): string {
  const shown = typeof got === "string" ? `"${got}"` : "this value";
  const hint = typeof got === "string" ? didYouMean(got, allowed) : "";
  return `${shown} is not one of the ${allowed.length} allowed values${hint || ` (${allowed.slice(0, 3).join(", ")}, …)`}`;
}

/** "cubes[0].resources.vcpu: " (empty for the document root). */
export function formatPath(path: IssuePath): string {
  let text = "";
  for (const segment of path) {
    text += typeof segment === "number" ? `[${segment}]` : `${text === "" ? "" : "."}${visible(String(segment))}`;
  }
  return text === "" ? "" : `${text}: `;
}
