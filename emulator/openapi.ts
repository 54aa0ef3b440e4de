/**
 * The OpenAPI 3.1.0 document served at /api/v1/openapi.json, built from the routes' own descriptions, so it
 * describes exactly what is served. Response shapes are the reference's components (schema/reference.ts) with the
 * differences below; every other shape, request bodies included, is made from its zod schema in schema/.
 */
import * as z from "zod/mini";
import { ProxyProtocolMismatchBody, TerminationProtectedBody } from "../schema/error-bodies.js";
import { referenceOpenApi } from "../schema/reference.js";
import { ref, withProperties, type Operation, type Schema, type Shape } from "./core/openapi-doc.js";
import { pathPattern, type Route } from "./core/resource.js";

const ERROR_RESPONSES: Record<number, string> = {
  400: "Bad request",
  401: "Missing or invalid API key",
  403: "Authenticated but lacking the permission (read-only key, or another space)",
  404: "Resource not found",
  409: "Conflict (termination protection refuses a delete; duplicate; operation in progress)",
  422: "Idempotency-Key reused with a different request",
  410: "Gone: the device code expired, was already used, or is unknown",
  428: "Authorization pending: keep polling at the given interval",
  429: "Mutating-request rate limit exceeded; see Retry-After",
  503: "No host ports available",
};

const IDEMPOTENCY_HEADER: Schema = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Optional (max 255 chars). A repeat within 24 h in the same Space returns the original response with Idempotency-Replayed: true.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

/** A zod schema as JSON Schema, from its input side: what the client accepts, or the emulator validates. */
function jsonSchema(shape: Shape): Schema {
  if (!(shape instanceof z.core.$ZodType)) return shape;
  const { $schema: _ignored, ...rest } = z.toJSONSchema(shape, { io: "input", unrepresentable: "any" }) as Schema;
  return rest;
}

function errorResponse(status: number): Schema {
  const schema =
    status === 409 ? { oneOf: [ref("Error"), ref("TerminationProtectedError"), ref("ProxyProtocolMismatchError")] } : ref("Error");
  const headers =
    status === 429 ? { "Retry-After": { schema: { type: "integer", minimum: 1 }, description: "Seconds to wait." } } : undefined;
  return { description: ERROR_RESPONSES[status] ?? "Error", ...(headers ? { headers } : {}), content: { "application/json": { schema } } };
}

function operation(path: string, method: string, op: Operation, isPublic: boolean): Schema {
  const mutating = method !== "get";
  const pathParams = pathPattern(path).names.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
  const errors = new Set([...(op.errors ?? []), ...(isPublic ? [] : [401, 403]), ...(mutating ? [429] : [])]);
  const [okStatus, okSchema] = op.ok;
  return {
    summary: op.summary,
    tags: [op.tag],
    ...(isPublic ? { security: [] } : {}),
    parameters: [...pathParams, ...(op.query ?? []), ...(mutating ? [IDEMPOTENCY_HEADER] : [])],
    ...(op.body
      ? {
          requestBody: {
            required: method === "post" && !op.bodyOptional,
            content: { "application/json": { schema: jsonSchema(op.body) } },
          },
        }
      : {}),
    responses: {
      [okStatus]: { description: "Success", ...(okSchema ? { content: { "application/json": { schema: jsonSchema(okSchema) } } } : {}) },
      ...Object.fromEntries([...errors].sort().map((status) => [status, errorResponse(status)])),
    },
  };
}

/** Fields the emulator's answers add to the reference's shapes (the client reads them for drift). */
const ADDED_PROPERTIES: Record<string, Record<string, Schema>> = {
  Cube: { region: { type: "string", description: "Region slug." } },
  Domain: {
    originScheme: { type: "string", enum: ["http", "https"] },
    proxyProtocol: { type: ["string", "null"], enum: ["v1", "v2", null] },
  },
};

/** Error bodies every 409 may have, whatever the route (the spec's, beside the reference's Error). */
const ERROR_SCHEMAS: Record<string, Schema> = {
  TerminationProtectedError: jsonSchema(TerminationProtectedBody),
  ProxyProtocolMismatchError: jsonSchema(ProxyProtocolMismatchBody),
};

/** The reference's components with the emulator's additions; then the resources' own and the error bodies. */
function componentSchemas(resourceSchemas: Record<string, Shape>): Record<string, Schema> {
  const reference = referenceOpenApi().components.schemas;
  const patched = Object.fromEntries(
    Object.entries(ADDED_PROPERTIES).map(([name, properties]) => [name, withProperties(reference[name] ?? {}, properties)]),
  );
  const added = Object.fromEntries(Object.entries(resourceSchemas).map(([name, shape]) => [name, jsonSchema(shape)]));
  return { ...reference, ...patched, ...added, ...ERROR_SCHEMAS };
}

function pathsOf(routes: readonly Route[]): Record<string, Record<string, Schema>> {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    const method = route.method.toLowerCase();
    (paths[route.path] ??= {})[method] = operation(route.path, method, route.doc, route.public === true);
  }
  return paths;
}

export function openApiDocument(routes: readonly Route[], schemas: Record<string, Shape>): Schema {
  return {
    openapi: "3.1.0",
    info: {
      title: "Cube Hosting API (cubeform emulator)",
      version: "1.0.0",
      description:
        "The local emulator of the Cube Hosting API. Authenticate with the X-API-KEY header; keys are scoped to one Space. Mutating (non-GET) requests are rate-limited per client IP (default 10 per 60 seconds).",
    },
    servers: [{ url: "/api/v1" }],
    security: [{ ApiKeyAuth: [] }],
    paths: pathsOf(routes),
    components: {
      securitySchemes: { ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-KEY" } },
      schemas: componentSchemas(schemas),
    },
  };
}
