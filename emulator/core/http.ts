/** Socket-free request/response types of the emulator core, and the error helpers. */
import type * as z from "zod/mini";
import { tryOr } from "../../system/files.js";

export interface ApiRequest {
  method: string;
  /** Path without the query, e.g. /api/v1/spaces/s/cubes */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  body: string;
  clientIp: string;
  /** The socket's address, never the Host header's (e.g. http://127.0.0.1:8787): handed-out URLs use it. */
  origin?: string;
}

export interface ApiResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON body; absent for an empty body. */
  body?: unknown;
  /** A body sent as it is instead (an HTML page of the admin surface), with `headers` naming its type. */
  text?: string;
  /** Destroy the connection instead of answering (fault injection). */
  abort?: boolean;
}

/** Thrown by route handlers; the pipeline turns it into {error: message} (or `body`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const notFound = (what: string) => new HttpError(404, `${what} not found`);
export const conflict = (message: string) => new HttpError(409, message);

/** A request's media type: its Content-Type without parameters, in lower case. */
export function mediaType(req: ApiRequest): string | undefined {
  return req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
}

export function json(status: number, body: unknown): ApiResponse {
  return { status, body };
}

export const SUCCESS = { success: true } as const;

/** Validates a JSON body with a request schema, or throws 400 naming the offending field. */
export function parseWith<S extends z.ZodMiniType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw badRequest(result.error.issues.map(describeIssue).join("; "));
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join(".");
  if (!field && issue.code === "invalid_type") return "request body must be a JSON object";
  if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) return `${field} is required`;
  if (issue.code === "unrecognized_keys") {
    const where = field ? ` in ${field}` : "";
    return `unknown field${issue.keys.length > 1 ? "s" : ""}${where}: ${issue.keys.join(", ")}`;
  }
  return field ? `${field}: ${issue.message}` : issue.message;
}

/** A path segment's percent-decoded value, or 400 when its percent-encoding is malformed (e.g. %ff). */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`Malformed percent-encoding in the path: ${JSON.stringify(segment)} is not UTF-8 percent-encoded`);
  }
}

/** The request's JSON body: undefined when empty; 400 unless it is a JSON object (every body of this API is). */
export function parseJsonBody(body: string): Record<string, unknown> | undefined {
  if (body.trim() === "") return undefined;
  // JSON.parse never answers undefined: that is the body not being JSON.
  const parsed: unknown = tryOr(() => JSON.parse(body) as unknown, undefined);
  if (parsed === undefined) throw badRequest("Request body is not valid JSON");
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw badRequest(
      `Request body must be a JSON object, not ${parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`}`,
    );
  }
  return parsed as Record<string, unknown>;
}

/** 400 for a query parameter the route does not document, or one given more than once. */
export function checkQueryNames(query: URLSearchParams, accepted: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (!accepted.includes(name)) {
      const hint = accepted.length > 0 ? `this endpoint accepts: ${accepted.join(", ")}` : "this endpoint takes no query parameters";
      throw badRequest(`Unknown query parameter ${JSON.stringify(name)} (${hint})`);
    }
    if (seen.has(name)) throw badRequest(`Query parameter ${JSON.stringify(name)} is given more than once`);
    seen.add(name);
  }
}

/** An optional integer query parameter within [min, max], or 400. */
export function intQuery(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) throw badRequest(`${name} must be an integer between ${min} and ${max}`);
  return value;
}
