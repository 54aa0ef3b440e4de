/**
 * Typed errors of the Cube API client: a stable `code`, and for HTTP errors `status`, `method` and `path` (API-relative, no
 * query). No request headers, and server text is redacted first: the API key cannot leak through String, JSON or inspect.
 */
import { TerminationProtectedBody, ProxyProtocolMismatchBody, ErrorBody } from "../schema/error-bodies.js";
import { cutShort, type Redactor } from "../system/redact.js";

export type CubeApiErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "termination_protected"
  | "proxy_protocol_port_mismatch"
  | "unprocessable"
  | "rate_limited"
  | "server_error"
  | "http_error"
  | "network_error"
  | "timeout"
  | "invalid_response"
  | "invalid_argument"
  | "config"
  | "insecure_url"
  | "redirect_refused"
  | "stopped"
  | "transfer_failed";

export interface ErrorContext {
  method?: string;
  path?: string;
  status?: number;
}

export class CubeApiError extends Error {
  readonly code: CubeApiErrorCode;
  readonly status: number | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;
  /** How many times the request was retried before this error was final. */
  retries = 0;
  /** Sending the same request again cannot succeed (a 4xx that is not a conflict or a rate limit): a watch stops retrying it. */
  readonly terminal: boolean = false;
  /** The fields a subclass adds to toJSON(), after the common ones. */
  static readonly jsonFields: readonly string[] = [];

  constructor(code: CubeApiErrorCode, message: string, context: ErrorContext = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.status = context.status;
    this.method = context.method;
    this.path = context.path;
  }

  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = {
      name: this.name,
      code: this.code,
      status: this.status,
      method: this.method,
      path: this.path,
      message: this.message,
      retries: this.retries,
    };
    for (const field of (this.constructor as typeof CubeApiError).jsonFields) json[field] = this[field as keyof this];
    return json;
  }
}

export function isCubeApiError(e: unknown): e is CubeApiError {
  return e instanceof CubeApiError;
}

/** The base of an error that differs from CubeApiError only by its code. */
function withCode(code: CubeApiErrorCode, terminal = false) {
  return class extends CubeApiError {
    override readonly terminal = terminal;
    constructor(message: string, context: ErrorContext = {}) {
      super(code, message, context);
    }
  };
}

export class BadRequestError extends withCode("bad_request", true) {}
export class UnauthorizedError extends withCode("unauthorized", true) {}
export class ForbiddenError extends withCode("forbidden", true) {}
export class NotFoundError extends withCode("not_found") {}
export class ConflictError extends withCode("conflict") {}
export class UnprocessableError extends withCode("unprocessable", true) {}
export class ServerError extends withCode("server_error") {}
/** A status the client has no dedicated class for (e.g. 410). */
export class HttpError extends withCode("http_error") {}
export class InvalidResponseError extends withCode("invalid_response") {}
/** A caller passed an argument the client refuses before sending (e.g. an over-long idempotency key). */
export class InvalidArgumentError extends withCode("invalid_argument") {}
export class ConfigError extends withCode("config") {}
export class InsecureUrlError extends withCode("insecure_url") {}
/** The run was asked to stop (e.g. Ctrl-C) before this request was sent: the API never saw it. */
export class StoppedError extends withCode("stopped") {}
/** A download or upload of archive bytes that did not complete (what was kept is in the message). */
export class TransferError extends withCode("transfer_failed") {}

/** The cube block of a termination_protected 409 (the reference may send only these fields). */
export interface ProtectedCubeInfo {
  id: string;
  terminationProtectionChangedAt: string | null;
  terminationProtectionChangedBy: string | null;
  [field: string]: unknown;
}

export class TerminationProtectedError extends CubeApiError {
  static override readonly jsonFields = ["cubeId", "cube"];
  override readonly terminal = true;
  readonly cubeId: string;
  constructor(
    message: string,
    context: ErrorContext,
    readonly cube: ProtectedCubeInfo,
  ) {
    super("termination_protected", message, context);
    this.cubeId = cube.id;
  }
}

export class ProxyProtocolMismatchError extends CubeApiError {
  static override readonly jsonFields = ["port", "domains"];
  override readonly terminal = true;
  constructor(
    message: string,
    context: ErrorContext,
    readonly port: number,
    readonly domains: string[],
  ) {
    super("proxy_protocol_port_mismatch", message, context);
  }
}

/** The base of an error that adds one field (shown by toJSON too), given to the constructor after the context. */
function withField<F extends string, T>(code: CubeApiErrorCode, field: F) {
  const WithField = class extends CubeApiError {
    static override readonly jsonFields = [field];
    constructor(message: string, context: ErrorContext, value: T) {
      super(code, message, context);
      Object.assign(this, { [field]: value });
    }
  };
  return WithField as new (
    message: string,
    context: ErrorContext,
    value: T,
  ) => InstanceType<typeof WithField> & Readonly<Record<F, T>>;
}

/** retryAfterSeconds: from Retry-After; undefined when the header was absent or unreadable. */
export class RateLimitedError extends withField<"retryAfterSeconds", number | undefined>("rate_limited", "retryAfterSeconds") {}

/** Where a request could not go, and why: the API's origin and the socket's or TLS layer's code. */
export interface NetworkContext {
  /** e.g. https://api.example.com:8443 */
  origin?: string;
  /** e.g. ECONNREFUSED, ERR_TLS_CERT_ALTNAME_INVALID */
  reason?: string;
  /** At most this many resends help (0: none, e.g. a refused certificate); undefined: the retry policy decides. */
  retryLimit?: number;
}

export class NetworkError extends CubeApiError {
  static override readonly jsonFields = ["origin", "reason"];
  readonly origin: string | undefined;
  readonly reason: string | undefined;
  readonly retryLimit: number | undefined;
  constructor(message: string, context: ErrorContext & NetworkContext) {
    super("network_error", message, context);
    this.origin = context.origin;
    this.reason = context.reason;
    this.retryLimit = context.retryLimit;
  }
}

export class TimeoutError extends CubeApiError {
  static override readonly jsonFields = ["origin"];
  readonly origin: string | undefined;
  constructor(message: string, context: ErrorContext & { origin?: string }) {
    super("timeout", message, context);
    this.origin = context.origin;
  }
}

/** locationOrigin: the origin of the Location header only (its path and query are not kept). */
export class RedirectRefusedError extends withField<"locationOrigin", string | undefined>("redirect_refused", "locationOrigin") {}

// ---------------------------------------------------------------- mapping an HTTP answer

export interface ErrorResponse {
  method: string;
  path: string;
  status: number;
  body: unknown;
  retryAfterSeconds: number | undefined;
}

const MAX_SERVER_TEXT = 500;

function serverMessage(body: unknown): string | undefined {
  const plain = ErrorBody.safeParse(body);
  if (plain.success) return plain.data.error;
  // {error: {message}}, e.g. the typed 409s.
  const inner = typeof body === "object" && body !== null ? (body as { error?: { message?: unknown } | null }).error : undefined;
  if (typeof inner === "object" && inner !== null && typeof inner.message === "string") return inner.message;
  if (typeof body === "string" && body.length > 0) return body;
  return undefined;
}

function describe(res: ErrorResponse, redact: Redactor): string {
  const text = serverMessage(res.body);
  const head = `Cube API ${res.status} on ${res.method} ${res.path}`;
  if (text === undefined) return head;
  return `${head}: ${cutShort(redact(text), MAX_SERVER_TEXT)}`;
}

/** The cube id of a /spaces/{s}/cubes/{c} path, for a 409 whose body omits the cube block. */
function cubeIdFromPath(path: string): string {
  const match = /\/cubes\/([^/?]+)/.exec(path);
  return match?.[1] !== undefined ? decodeURIComponent(match[1]) : "";
}

function conflictError(res: ErrorResponse, message: string, context: ErrorContext): CubeApiError {
  const protectedBody = TerminationProtectedBody.safeParse(res.body);
  if (protectedBody.success) {
    const block = protectedBody.data.error.cube;
    const cube: ProtectedCubeInfo = {
      ...block,
      id: block?.id ?? cubeIdFromPath(res.path),
      terminationProtectionChangedAt: block?.terminationProtectionChangedAt ?? null,
      terminationProtectionChangedBy: block?.terminationProtectionChangedBy ?? null,
    };
    return new TerminationProtectedError(message, context, cube);
  }
  const mismatch = ProxyProtocolMismatchBody.safeParse(res.body);
  if (mismatch.success) {
    return new ProxyProtocolMismatchError(message, context, mismatch.data.errorMeta.port, mismatch.data.errorMeta.domains);
  }
  return new ConflictError(message, context);
}

const BY_STATUS: Record<number, new (message: string, context: ErrorContext) => CubeApiError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  422: UnprocessableError,
};

export function errorFromResponse(res: ErrorResponse, redact: Redactor): CubeApiError {
  const message = describe(res, redact);
  const context: ErrorContext = { method: res.method, path: res.path, status: res.status };
  if (res.status === 409) return conflictError(res, message, context);
  if (res.status === 429) return new RateLimitedError(message, context, res.retryAfterSeconds);
  const Known = BY_STATUS[res.status] ?? (res.status >= 500 ? ServerError : HttpError);
  return new Known(message, context);
}

/** A transfer that got no answer from the storage: names its origin and the cause (see network-failure.ts). */
export class StorageUnreachable extends TransferError {
  constructor(
    message: string,
    readonly origin: string,
    /** At most this many further attempts can help; undefined: the transfer's own limit applies. */
    readonly retryLimit: number | undefined,
  ) {
    super(message);
  }
}
