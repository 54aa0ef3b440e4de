/**
 * The OpenAPI 3.1.0 document the emulator serves at /api/v1/openapi.json: exactly the routes
 * of routes.ts. Request bodies come from the zod schemas the emulator validates with;
 * response shapes from the reference's components (nullable rewritten to type arrays).
 */
import { z } from "zod";
import {
  AttachDomainRequest,
  CreateCubeRequest,
  CreateSnapshotRequest,
  CreateTcpMappingRequest,
  CreateWebhookRequest,
  PatchCubeRequest,
  PatchDomainRequest,
  RestoreRequest,
  SshPortRequest,
} from "../schema/api.js";
import { REFERENCE_SCHEMAS } from "./openapi-components.js";

type Schema = Record<string, unknown>;
type Operation = { summary: string; tag: string; body?: z.ZodType; ok: [number, Schema | null]; errors?: number[]; query?: Schema[] };

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const object = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({ type: "object", properties, required });
const listOf = (key: string, item: string): Schema => object({ [key]: { type: "array", items: ref(item) } });
const SUCCESS = object({ success: { type: "boolean" } });
const CUBE = "/spaces/{spaceId}/cubes/{cubeId}";
const intQuery = (name: string, min: number, max: number, description: string): Schema => ({
  name,
  in: "query",
  required: false,
  description,
  schema: { type: "integer", minimum: min, maximum: max },
});

const OPERATIONS: Record<string, Record<string, Operation>> = {
  "/regions": { get: { summary: "List regions", tag: "Public", ok: [200, listOf("regions", "Region")] } },
  "/images": { get: { summary: "List OS images", tag: "Public", ok: [200, listOf("images", "Image")] } },
  "/pricing": { get: { summary: "Hourly rates and volume tiers", tag: "Public", ok: [200, ref("Pricing")] } },
  "/openapi.json": { get: { summary: "This document", tag: "Public", ok: [200, { type: "object" }] } },
  "/space": { get: { summary: "Resolve the space this API key is scoped to", tag: "Spaces", ok: [200, ref("Space")], errors: [401, 404] } },
  "/spaces/{spaceId}/audit-log": {
    get: { summary: "Customer-visible audit rows of the space (emulator addition)", tag: "Spaces", ok: [200, listOf("auditRows", "AuditRow")] },
  },
  "/spaces/{spaceId}/cubes": {
    get: {
      summary: "List Cubes in a Space",
      tag: "Cubes",
      ok: [200, object({ cubes: { type: "array", items: ref("Cube") }, pagination: ref("Pagination") })],
      errors: [400],
      query: [intQuery("page", 1, Number.MAX_SAFE_INTEGER, "Page number, from 1."), intQuery("limit", 1, 100, "Page size (default 20).")],
    },
    post: { summary: "Create a Cube", tag: "Cubes", body: CreateCubeRequest, ok: [201, object({ cube: ref("Cube") })], errors: [400] },
  },
  [CUBE]: {
    get: { summary: "Get a Cube", tag: "Cubes", ok: [200, object({ cube: ref("Cube") })], errors: [404] },
    patch: { summary: "Toggle termination protection", tag: "Cubes", body: PatchCubeRequest, ok: [200, object({ cube: ref("Cube") })], errors: [400, 404] },
    delete: { summary: "Delete a Cube (asynchronous)", tag: "Cubes", ok: [200, SUCCESS], errors: [404, 409] },
  },
  [`${CUBE}/power-off`]: { post: { summary: "Power off a running Cube", tag: "Cubes", ok: [200, SUCCESS], errors: [404, 409] } },
  [`${CUBE}/wake`]: { post: { summary: "Start a stopped Cube", tag: "Cubes", ok: [200, SUCCESS], errors: [404, 409] } },
  [`${CUBE}/restart`]: { post: { summary: "Cold-restart a running Cube", tag: "Cubes", ok: [200, SUCCESS], errors: [404, 409] } },
  [`${CUBE}/ssh`]: { get: { summary: "SSH connection info", tag: "Cubes", ok: [200, ref("CubeSshInfo")], errors: [404] } },
  [`${CUBE}/ssh-port`]: {
    put: {
      summary: "Change the in-Cube SSH port (host port unchanged)",
      tag: "Cubes",
      body: SshPortRequest,
      ok: [200, object({ success: { type: "boolean" }, cubePort: { type: "integer" } })],
      errors: [400, 404, 409],
    },
  },
  [`${CUBE}/domains`]: {
    get: { summary: "List custom domains of a Cube", tag: "Domains", ok: [200, listOf("domains", "Domain")], errors: [404] },
    post: {
      summary: "Attach a custom domain",
      tag: "Domains",
      body: AttachDomainRequest,
      ok: [201, object({ domain: ref("Domain"), records: { type: "array", items: ref("DnsRecord") } })],
      errors: [400, 404, 409],
    },
  },
  [`${CUBE}/domains/{mappingId}`]: {
    patch: { summary: "Update a domain's proxy settings", tag: "Domains", body: PatchDomainRequest, ok: [200, object({ domain: ref("Domain") })], errors: [400, 404, 409] },
    delete: { summary: "Detach a custom domain", tag: "Domains", ok: [200, SUCCESS], errors: [404] },
  },
  [`${CUBE}/domains/{mappingId}/records`]: {
    get: { summary: "DNS records the domain needs, with their live state", tag: "Domains", ok: [200, ref("DomainRecordsView")], errors: [404] },
  },
  [`${CUBE}/tcp-mappings`]: {
    get: { summary: "List TCP mappings of a Cube", tag: "TCP mappings", ok: [200, listOf("tcpMappings", "TcpMapping")], errors: [404] },
    post: { summary: "Create a TCP mapping", tag: "TCP mappings", body: CreateTcpMappingRequest, ok: [201, object({ tcpMapping: ref("TcpMapping") })], errors: [400, 404, 409, 503] },
  },
  [`${CUBE}/tcp-mappings/{mappingId}`]: {
    delete: { summary: "Delete a TCP mapping (not the SSH mapping)", tag: "TCP mappings", ok: [200, SUCCESS], errors: [400, 404] },
  },
  [`${CUBE}/snapshots`]: {
    get: { summary: "List snapshots of a Cube", tag: "Snapshots", ok: [200, listOf("snapshots", "Snapshot")], errors: [404] },
    post: { summary: "Create a snapshot", tag: "Snapshots", body: CreateSnapshotRequest, ok: [201, object({ snapshot: ref("Snapshot") })], errors: [400, 404, 409] },
  },
  [`${CUBE}/snapshots/{snapshotId}`]: { delete: { summary: "Delete a snapshot", tag: "Snapshots", ok: [200, SUCCESS], errors: [404] } },
  [`${CUBE}/restore`]: { post: { summary: "Restore a Cube from a snapshot", tag: "Snapshots", body: RestoreRequest, ok: [200, SUCCESS], errors: [400, 404, 409] } },
  "/spaces/{spaceId}/webhooks": {
    get: { summary: "List webhook endpoints", tag: "Webhooks", ok: [200, listOf("webhooks", "Webhook")] },
    post: {
      summary: "Create a webhook endpoint (signing secret returned once)",
      tag: "Webhooks",
      body: CreateWebhookRequest,
      ok: [201, object({ webhook: { allOf: [ref("Webhook"), object({ secret: { type: "string" } })] } })],
      errors: [400],
    },
  },
  "/spaces/{spaceId}/webhooks/{endpointId}": {
    get: { summary: "Get a webhook (no secret)", tag: "Webhooks", ok: [200, object({ webhook: ref("Webhook") })], errors: [404] },
    delete: { summary: "Delete a webhook (cascades deliveries)", tag: "Webhooks", ok: [200, SUCCESS], errors: [404] },
  },
  "/spaces/{spaceId}/webhooks/{endpointId}/deliveries": {
    get: {
      summary: "Webhook delivery history, newest first",
      tag: "Webhooks",
      ok: [200, listOf("deliveries", "WebhookDelivery")],
      errors: [400, 404],
      query: [intQuery("limit", 1, 100, "How many deliveries (default 50).")],
    },
  },
};

const ERROR_RESPONSES: Record<number, string> = {
  400: "Bad request",
  401: "Missing or invalid API key",
  403: "Authenticated but lacking the permission (read-only key, or another space)",
  404: "Resource not found",
  409: "Conflict (termination protection refuses a delete; duplicate; operation in progress)",
  422: "Idempotency-Key reused with a different request",
  429: "Mutating-request rate limit exceeded; see Retry-After",
  503: "No host ports available",
};

const IDEMPOTENCY_HEADER: Schema = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Optional (max 255 chars). A repeat within 24 h in the same Space returns the original response with Idempotency-Replayed: true.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

function requestSchema(schema: z.ZodType): Schema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Schema;
  return rest;
}

function errorResponse(status: number): Schema {
  const schema = status === 409 ? { oneOf: [ref("Error"), ref("TerminationProtectedError"), ref("ProxyProtocolMismatchError")] } : ref("Error");
  const headers = status === 429 ? { "Retry-After": { schema: { type: "integer", minimum: 1 }, description: "Seconds to wait." } } : undefined;
  return { description: ERROR_RESPONSES[status] ?? "Error", ...(headers ? { headers } : {}), content: { "application/json": { schema } } };
}

function operation(path: string, method: string, op: Operation): Schema {
  const isPublic = op.tag === "Public";
  const mutating = method !== "get";
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
  const errors = new Set([...(op.errors ?? []), ...(isPublic ? [] : [401, 403]), ...(mutating ? [429] : [])]);
  const [okStatus, okSchema] = op.ok;
  return {
    summary: op.summary,
    tags: [op.tag],
    ...(isPublic ? { security: [] } : {}),
    parameters: [...pathParams, ...(op.query ?? []), ...(mutating ? [IDEMPOTENCY_HEADER] : [])],
    ...(op.body ? { requestBody: { required: method === "post" && op.body !== CreateSnapshotRequest, content: { "application/json": { schema: requestSchema(op.body) } } } } : {}),
    responses: {
      [okStatus]: { description: "Success", ...(okSchema ? { content: { "application/json": { schema: okSchema } } } : {}) },
      ...Object.fromEntries([...errors].sort().map((status) => [status, errorResponse(status)])),
    },
  };
}

const EXTRA_SCHEMAS: Record<string, Schema> = {
  Domain: withProperties(REFERENCE_SCHEMAS.Domain ?? {}, {
    originScheme: { type: "string", enum: ["http", "https"] },
    proxyProtocol: { type: ["string", "null"], enum: ["v1", "v2", null] },
  }),
  Cube: withProperties(REFERENCE_SCHEMAS.Cube ?? {}, { region: { type: "string", description: "Region slug." } }),
  Pricing: object({
    currency: { type: "string" },
    rates: object({ vcpuPerHour: { type: "number" }, ramGbPerHour: { type: "number" }, diskGbPerHour: { type: "number" } }),
    tiers: { type: "array", items: ref("PricingTier") },
    note: { type: "string" },
  }),
  DomainRecordsView: object({
    domain: { type: "string" },
    isWildcard: { type: "boolean" },
    records: { type: "array", items: ref("DnsRecordStatus") },
    summary: object({ found: { type: "integer" }, total: { type: "integer" }, complete: { type: "boolean" } }),
    checkedAt: { type: "string", format: "date-time" },
  }),
  AuditRow: object(
    {
      id: { type: "string" },
      at: { type: "string", format: "date-time" },
      spaceId: { type: "string" },
      category: { type: "string" },
      action: { type: "string" },
      actorType: { type: "string", enum: ["user", "admin", "system"] },
      actorId: { type: "string" },
      targetId: { type: "string" },
      details: { type: "object" },
    },
    ["id", "at", "spaceId", "category", "action", "actorType", "actorId", "targetId", "details"],
  ),
  TerminationProtectedError: object({
    error: object({ code: { const: "termination_protected" }, message: { type: "string" }, cube: ref("Cube") }),
  }),
  ProxyProtocolMismatchError: object({
    error: { type: "string" },
    errorMeta: object({ code: { const: "proxy_protocol_port_mismatch" }, port: { type: "integer" }, domains: { type: "array", items: { type: "string" } } }),
  }),
};

function withProperties(schema: Schema, properties: Record<string, Schema>): Schema {
  return { ...schema, properties: { ...(schema.properties as Record<string, Schema>), ...properties } };
}

/** Every (method, path) the document describes, for checks against the route table. */
export function describedOperations(): string[] {
  return Object.entries(OPERATIONS).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
}

export function openApiDocument(): Schema {
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
    paths: Object.fromEntries(
      Object.entries(OPERATIONS).map(([path, ops]) => [path, Object.fromEntries(Object.entries(ops).map(([method, op]) => [method, operation(path, method, op)]))]),
    ),
    components: {
      securitySchemes: { ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-KEY" } },
      schemas: { ...REFERENCE_SCHEMAS, ...EXTRA_SCHEMAS },
    },
  };
}
