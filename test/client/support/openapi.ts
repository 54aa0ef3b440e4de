/**
 * Validation of request bodies against the reference OpenAPI document
 * (shared/reference/krova-openapi.json). The document marks optional-null fields with the
 * OpenAPI 3.0 `nullable: true`; they are rewritten to JSON Schema type arrays first.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const OPENAPI_PATH = fileURLToPath(new URL("../../../../shared/reference/krova-openapi.json", import.meta.url));

function rewriteNullable(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewriteNullable);
  if (node === null || typeof node !== "object") return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) if (key !== "nullable") out[key] = rewriteNullable(value);
  if (node.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

interface Operation {
  requestBody?: { content: { "application/json": { schema: Json } } };
}

const doc = rewriteNullable(JSON.parse(readFileSync(OPENAPI_PATH, "utf8")) as Json) as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: Json;
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);

/** The OpenAPI path template of a concrete API path (relative to /api/v1), if any. */
export function matchPathTemplate(method: string, concretePath: string): string | undefined {
  const wanted = method.toLowerCase();
  const candidates = Object.keys(doc.paths).filter((template) => doc.paths[template]?.[wanted] !== undefined);
  // Literal segments beat parameters (/cubes/imports before /cubes/{cubeId}).
  candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  return candidates.find((template) => {
    const pattern = "^" + template.replace(/\{[^}]+\}/g, "[^/]+") + "$";
    return new RegExp(pattern).test(concretePath);
  });
}

export interface RequestValidation {
  ok: boolean;
  errors: string[];
  /** False when the document defines no JSON request body for the operation. */
  hasBodySchema: boolean;
}

export function validateRequest(method: string, pathTemplate: string, body: unknown): RequestValidation {
  const operation = doc.paths[pathTemplate]?.[method.toLowerCase()];
  if (!operation) throw new Error(`No operation ${method} ${pathTemplate} in the reference document`);
  const schema = operation.requestBody?.content["application/json"].schema;
  if (schema === undefined) return { ok: body === undefined, errors: body === undefined ? [] : ["no request body expected"], hasBodySchema: false };
  const validate = ajv.compile({ ...(schema as object), components: doc.components });
  const ok = validate(body) as boolean;
  return { ok, errors: (validate.errors ?? []).map((e) => `${e.instancePath || "(body)"} ${e.message ?? ""}`), hasBodySchema: true };
}
