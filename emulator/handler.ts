/**
 * handle(ApiRequest) → ApiResponse, usable without a socket. An /api/v1 request goes (the reference's lifecycle):
 * injected fault, route lookup, rate limit (mutating only), idempotency replay (the key's Space found from its
 * hash; an unknown key cannot replay and gets the 401), authentication, permission. So a replay is answered before
 * the permission check (a read-only key of the Space gets the stored response, which it could read anyway) and
 * still uses up rate-limit budget.
 */
import { adminHandler, ADMIN_PREFIX } from "./admin.js";
import { findKey, type AuthInfo } from "./core/auth.js";
import type { RouteContext } from "./core/context.js";
import type { Core } from "./core/core.js";
import { checkQueryNames, HttpError, parseJsonBody, type ApiRequest, type ApiResponse } from "./core/http.js";
import { findReplay, fingerprint, IDEMPOTENCY_KEY_MAX, storeOutcome } from "./core/idempotency.js";
import { isoAt } from "./core/ids.js";
import { matchRoute, type Route } from "./routes.js";
import type { EmulatorAdmin, FaultSpec } from "./types.js";
import { sleep } from "../system/time.js";

export const API_PREFIX = "/api/v1";
const REPLAYED = "Idempotency-Replayed";

export type Handle = (req: ApiRequest) => Promise<ApiResponse>;

export function createHandler(core: Core, admin: EmulatorAdmin): Handle {
  const handleAdmin = adminHandler(admin, core);
  return async (req) => {
    if (req.path === ADMIN_PREFIX || req.path.startsWith(`${ADMIN_PREFIX}/`)) return handleAdmin(req);
    if (!req.path.startsWith(`${API_PREFIX}/`)) return error(404, `No such path: ${req.path}`);
    const fault = core.faults.take(req.method, req.path);
    if (fault?.kind === "latency") await sleep(fault.ms ?? 0);
    const response = faultResponse(fault) ?? handleApi(core, req);
    const final = fault?.kind === "drop-after-commit" ? { ...response, abort: true } : response;
    core.logRequest({
      at: isoAt(core.now()),
      method: req.method,
      path: req.path,
      query: req.query.toString(),
      status: final.status,
      mutating: isMutating(req.method),
      idempotencyKey: isMutating(req.method) ? (req.headers["idempotency-key"] ?? null) : null,
      replayed: final.headers?.[REPLAYED] === "true",
      authenticated: req.headers["x-api-key"] !== undefined,
    });
    return final;
  };
}

function faultResponse(fault: FaultSpec | undefined): ApiResponse | undefined {
  if (fault?.kind === "status") return error(fault.status ?? 503, `Injected fault: HTTP ${fault.status ?? 503}`);
  if (fault?.kind === "reset") return { status: 0, abort: true };
  return undefined;
}

export function isMutating(method: string): boolean {
  return method !== "GET" && method !== "HEAD";
}

function handleApi(core: Core, req: ApiRequest): ApiResponse {
  const ran = core.scheduler.runDue();
  let response: ApiResponse;
  try {
    response = dispatch(core, req);
  } catch (thrown) {
    response = fromThrown(thrown);
  }
  if (ran > 0 || isMutating(req.method)) core.save();
  return response;
}

function dispatch(core: Core, req: ApiRequest): ApiResponse {
  const match = matchRoute(req.method, req.path.slice(API_PREFIX.length));
  if (!match) return error(404, `No such endpoint: ${req.path}`);
  const mutating = isMutating(req.method);
  if (mutating) {
    const decision = core.rateLimiter.check(req.clientIp);
    if (!decision.allowed)
      return { status: 429, headers: { "Retry-After": String(decision.retryAfterSeconds) }, body: { error: decision.message } };
  }
  if ("methodNotAllowed" in match) return error(405, `Method ${req.method} is not allowed on ${req.path}`);
  const { route, params } = match;
  // The listening address, not the Host header: a rebinding name must not end up in a URL we hand out.
  const origin = req.origin ?? "http://127.0.0.1";
  if (route.public) return route.handler({ core, body: parseRequest(route, req), origin, now: core.now() });
  const idempotencyKey = mutating ? req.headers["idempotency-key"] : undefined;
  if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || idempotencyKey.length > IDEMPOTENCY_KEY_MAX)) {
    return error(400, `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters long`);
  }
  const now = core.now();
  const keyHolder = req.headers["x-api-key"] ? findKey(core.data, req.headers["x-api-key"]) : undefined;
  if (idempotencyKey && keyHolder) {
    const replay = findReplay(core, keyHolder.spaceId, idempotencyKey, now);
    if (replay && replay.fingerprint !== fingerprint(req))
      return error(422, "This Idempotency-Key was already used with a different request (method, path or body)");
    if (replay) return { status: replay.status, headers: { [REPLAYED]: "true" }, body: replay.body };
  }
  const auth = authenticate(req, keyHolder);
  authorize(route, params, auth, mutating);
  const response = route.handler({
    core,
    params,
    query: req.query,
    body: parseRequest(route, req),
    auth,
    now,
    origin,
  } satisfies RouteContext);
  if (idempotencyKey) storeOutcome(core, auth.spaceId, idempotencyKey, req, response, now);
  return response;
}

/** Spec §5: X-API-KEY only; there is no bearer token (an Authorization header alone is a 401). */
function authenticate(req: ApiRequest, keyHolder: AuthInfo | undefined): AuthInfo {
  if (keyHolder) return keyHolder;
  if (req.headers["x-api-key"]) throw new HttpError(401, "Invalid API key");
  if (req.headers.authorization?.toLowerCase().startsWith("bearer ")) {
    throw new HttpError(401, "Bearer tokens are not supported: send the API key in the X-API-KEY header");
  }
  throw new HttpError(401, "Missing API key: send it in the X-API-KEY header");
}

/**
 * A path spaceId other than the key's is a 403 whether or not it exists (spec §5 rule 3: no membership; the same
 * answer for every foreign id reveals nothing). Other spaces' objects under the key's own Space are 404s.
 */
function authorize(route: Route, params: Record<string, string>, auth: AuthInfo, mutating: boolean): void {
  if (params.spaceId !== undefined && params.spaceId !== auth.spaceId) throw new HttpError(403, "This API key is not scoped to that space");
  if (mutating && auth.role === "read_only") {
    throw new HttpError(
      403,
      route.readOnlyMessage ?? `This API key is read-only: ${route.method} ${route.path} needs a key with write permission`,
    );
  }
}

/** The JSON body, after checking the query names against the route's documented ones; a route without a body takes none or `{}`. */
function parseRequest(route: Route, req: ApiRequest): unknown {
  checkQueryNames(
    req.query,
    (route.doc.query ?? []).map((param) => String(param.name)),
  );
  const body = parseJsonBody(req.body);
  const fields = body === undefined || route.doc.body ? [] : Object.keys(body);
  if (fields.length > 0)
    throw new HttpError(
      400,
      `unknown field${fields.length > 1 ? "s" : ""}: ${fields.join(", ")} (${route.method} ${route.path} takes no request body)`,
    );
  return body;
}

function fromThrown(thrown: unknown): ApiResponse {
  if (thrown instanceof HttpError) return { status: thrown.status, body: thrown.body ?? { error: thrown.message } };
  return error(500, `Internal emulator error: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
}

export function error(status: number, message: string): ApiResponse {
  return { status, body: { error: message } };
}
