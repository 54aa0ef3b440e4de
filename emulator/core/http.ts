/** Socket-free request/response types of the emulator core, and the error helpers. */
import type { z } from "zod";

export interface ApiRequest {
  method: string;
  /** Path without the query, e.g. /api/v1/spaces/s/cubes */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  body: string;
  clientIp: string;
}

export interface ApiResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON body; absent for an empty body. */
  body?: unknown;
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

export function json(status: number, body: unknown): ApiResponse {
  return { status, body };
}

export const SUCCESS = { success: true } as const;

/** Validates a JSON body with a request schema, or throws 400 naming the offending field. */
export function parseWith<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw badRequest(describeIssues(result.error.issues));
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map(describeIssue).join("; ");
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

/** An optional integer query parameter within [min, max], or 400. */
export function intQuery(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) throw badRequest(`${name} must be an integer between ${min} and ${max}`);
  return value;
}
