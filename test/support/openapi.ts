/**
 * The live service's OpenAPI document (schema/reference.ts: `nullable: true` rewritten to type
 * arrays) as a validator, formats checked with ajv-formats. Returns lists of readable error
 * strings (empty = valid).
 *
 * validateResponse: a status the reference documents is checked against its schema (no
 * content documented = nothing to check); an undocumented error status (≥ 400) is checked
 * against the general Error body; an undocumented success status is an error.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { referenceOpenApi } from "../../schema/reference.js";

type Json = Record<string, unknown>;

const BASE_ID = "https://reference.invalid/openapi.json";
const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"];

let ajvInstance: Ajv2020 | undefined;
function ajv(): Ajv2020 {
  if (ajvInstance) return ajvInstance;
  const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => void;
  ajvInstance = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajvInstance);
  ajvInstance.addSchema({ $id: BASE_ID, components: referenceOpenApi().components });
  return ajvInstance;
}

const validators = new Map<string, ValidateFunction>();
function compile(cacheKey: string, schema: unknown): ValidateFunction {
  let validate = validators.get(cacheKey);
  if (!validate) {
    validate = ajv().compile(absoluteRefs(schema) as Json);
    validators.set(cacheKey, validate);
  }
  return validate;
}

function absoluteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absoluteRefs);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Json).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${BASE_ID}${v}` : absoluteRefs(v),
    ]),
  );
}

function resolveLocal(value: Json): Json {
  const ref = value.$ref;
  if (typeof ref !== "string") return value;
  const target = ref
    .replace(/^#\//, "")
    .split("/")
    .reduce<unknown>((node, part) => (node as Json | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], referenceOpenApi());
  return resolveLocal(target as Json);
}

function stripPrefix(path: string): string {
  const bare = path.split("?")[0] ?? "";
  const noOrigin = bare.replace(/^https?:\/\/[^/]+/, "");
  return noOrigin.startsWith("/api/v1/") ? noOrigin.slice("/api/v1".length) : noOrigin;
}

/** The reference's path template for a concrete path (with or without /api/v1), or undefined. */
export function matchPathTemplate(method: string, concretePath: string): string | undefined {
  const path = stripPrefix(concretePath);
  const segments = path.split("/");
  let best: { template: string; literals: number } | undefined;
  for (const [template, ops] of Object.entries(referenceOpenApi().paths)) {
    if (!ops[method.toLowerCase()]) continue;
    const parts = template.split("/");
    if (parts.length !== segments.length) continue;
    const fits = parts.every((part, i) => (/^\{\w+\}$/.test(part) ? (segments[i] ?? "") !== "" : part === segments[i]));
    if (!fits) continue;
    const literals = parts.filter((part) => !part.startsWith("{")).length;
    if (!best || literals > best.literals) best = { template, literals };
  }
  return best?.template;
}

function operationOf(method: string, pathTemplate: string): Json | undefined {
  const op = referenceOpenApi().paths[pathTemplate]?.[method.toLowerCase()];
  return op && METHODS.includes(method.toLowerCase()) ? op : undefined;
}

function run(cacheKey: string, schema: unknown, body: unknown): string[] {
  const validate = compile(cacheKey, schema);
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || "(body)"} ${e.message ?? "is invalid"}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
  );
}

export function validateResponse(method: string, pathTemplate: string, status: number, body: unknown): string[] {
  const op = operationOf(method, pathTemplate);
  if (!op) return [`the reference has no operation ${method.toUpperCase()} ${pathTemplate}`];
  const responses = (op.responses ?? {}) as Record<string, Json>;
  const documented = responses[String(status)];
  if (!documented) {
    if (status >= 400) return run("#Error", { $ref: "#/components/schemas/Error" }, body);
    return [`the reference documents no ${status} response for ${method.toUpperCase()} ${pathTemplate}`];
  }
  const schema = ((resolveLocal(documented).content as Json | undefined)?.["application/json"] as Json | undefined)?.schema;
  if (!schema) return [];
  return run(`${method} ${pathTemplate} ${status}`, schema, body);
}

export function validateRequest(method: string, pathTemplate: string, body: unknown): string[] {
  const op = operationOf(method, pathTemplate);
  if (!op) return [`the reference has no operation ${method.toUpperCase()} ${pathTemplate}`];
  const requestBody = op.requestBody as Json | undefined;
  if (!requestBody) return body === undefined ? [] : [`${method.toUpperCase()} ${pathTemplate} takes no request body`];
  if (body === undefined) return requestBody.required === true ? ["a request body is required"] : [];
  const schema = ((requestBody.content as Json | undefined)?.["application/json"] as Json | undefined)?.schema;
  return schema ? run(`request ${method} ${pathTemplate}`, schema, body) : [];
}
