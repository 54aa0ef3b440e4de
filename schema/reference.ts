/**
 * The live service's OpenAPI document (krova-openapi.json, a verbatim copy of shared/reference/krova-openapi.json) as a JSON
 * Schema 2020-12 validator reads it: it says 3.1.0 but marks optional-null fields with 3.0's `nullable: true`, which 2020-12
 * ignores, so each becomes a type array. The emulator serves its components; tests validate answers and requests against it.
 */
import published from "./krova-openapi.json" with { type: "json" };

type Json = Record<string, unknown>;

export interface ReferenceDocument {
  openapi: string;
  info: Json;
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; responses?: Record<string, Json> };
}

let rewritten: ReferenceDocument | undefined;

/** The reference with `nullable` rewritten; built once, shared: do not change it. */
export function referenceOpenApi(): ReferenceDocument {
  rewritten ??= rewriteNullable(published) as ReferenceDocument;
  return rewritten;
}

/** Rewrites OpenAPI 3.0 `nullable: true` into JSON Schema 2020-12 (`type: [T, "null"]`, enum gains null). */
export function rewriteNullable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteNullable);
  if (!value || typeof value !== "object") return value;
  const input = value as Json;
  const out: Json = {};
  for (const [key, child] of Object.entries(input)) if (key !== "nullable") out[key] = rewriteNullable(child);
  if (input.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}
