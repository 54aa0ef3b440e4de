/**
 * The transport: one HTTP exchange, no retries, no pacing. A non-2xx answer becomes a typed
 * error; a 3xx is never followed (redirect_refused), so the X-API-KEY header cannot be carried
 * to another origin. GETs go through the lean kept-alive reader (reader.ts); everything else
 * through undici, which is loaded on the first mutation only (a plan never loads it).
 */
import type { Agent } from "undici";
import { ReadFailure, ReadPool } from "./reader.js";
import { errorFromResponse, InvalidResponseError, RedirectRefusedError, TimeoutError, type Redactor } from "./errors.js";
import { networkError } from "./network-failure.js";
import type { ReadMemo } from "./read-memo.js";

export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface ApiRequest {
  method: HttpMethod;
  /** API-relative path without the query, e.g. /spaces/s1/cubes */
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  idempotencyKey?: string;
  /** False for the unauthenticated lookups (regions, images, pricing): the key is not sent. */
  auth?: boolean;
  /** Shared by every send of one call: wrappers count their resends here. */
  progress: { retries: number };
}

export interface ApiResponse {
  status: number;
  body: unknown;
  /** The server answered from its idempotency store (Idempotency-Replayed: true). */
  replayed: boolean;
}

/** The signature the transport and every wrapper share. */
export type Send = (req: ApiRequest) => Promise<ApiResponse>;

export function isMutating(method: HttpMethod): boolean {
  return method !== "GET" && method !== "HEAD";
}

export interface TransportOptions {
  baseUrl: URL;
  apiKey: string;
  timeoutMs: number;
  userAgent: string;
  redact: Redactor;
  now: () => number;
  /** Unchanged answers to GETs are not parsed again (watch; see read-memo.ts). */
  memo?: ReadMemo;
}

/** Retry-After is delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - nowMs) / 1000);
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function buildUrl(base: string, req: ApiRequest): string {
  const url = new URL(base + req.path);
  if (req.query) for (const [key, value] of Object.entries(req.query)) url.searchParams.set(key, String(value));
  return url.href;
}

function buildHeaders(options: TransportOptions, req: ApiRequest): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json", "user-agent": options.userAgent };
  if (req.auth !== false) headers["x-api-key"] = options.apiKey;
  if (req.body !== undefined) headers["content-type"] = "application/json";
  if (req.idempotencyKey !== undefined) headers["idempotency-key"] = req.idempotencyKey;
  return headers;
}

function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function originOf(location: string | undefined, base: URL): string | undefined {
  if (location === undefined) return undefined;
  try {
    return new URL(location, base).origin;
  } catch {
    return undefined;
  }
}

/** A failure before an answer: a timeout, or a NetworkError naming the API's origin and the cause. */
function transportFailure(failure: { code?: unknown; message?: unknown }, req: ApiRequest, base: URL, timedOut: boolean, timeoutMs: number): Error {
  const context = { method: req.method, path: req.path, origin: base.origin };
  const where = `Cube API ${req.method} ${req.path} at ${base.origin}`;
  if (timedOut) return new TimeoutError(`${where} timed out: no answer within ${timeoutMs} ms`, context);
  if (failure.code === "UND_ERR_HEADERS_TIMEOUT" || failure.code === "UND_ERR_BODY_TIMEOUT") return new TimeoutError(`${where} timed out (${failure.code})`, context);
  return networkError(failure, req.method, req.path, base);
}

export interface Transport {
  send: Send;
  close(): Promise<void>;
}

/** `connections`: kept-alive connections for reads, and as many for everything else. */
export function createTransport(options: TransportOptions, connections: number): Transport {
  const base = options.baseUrl.href.replace(/\/+$/, "");
  const basePath = options.baseUrl.pathname.replace(/\/+$/, "");
  const reads = new ReadPool(options.baseUrl, connections);
  let undici: Promise<{ request: typeof import("undici").request; agent: Agent }> | undefined;
  const loadUndici = () =>
    (undici ??= import("undici").then(({ Agent, request }) => ({ request, agent: new Agent({ connections, keepAliveTimeout: 10_000 }) })));

  const memo = options.memo;
  const read = async (req: ApiRequest): Promise<ApiResponse> => {
    const target = basePath + req.path + queryString(req);
    let raw;
    try {
      raw = await reads.get(target, headerLines(options, req), options.timeoutMs);
    } catch (err) {
      throw readFailure(err, req, options.baseUrl, options.timeoutMs);
    }
    if (memo === undefined || raw.status < 200 || raw.status >= 300) return interpret(options, req, raw.status, raw.header, raw.text);
    const same = memo.same(target, raw.text);
    if (same !== undefined) return { status: raw.status, body: same.body, replayed: raw.header("idempotency-replayed") === "true" };
    const res = interpret(options, req, raw.status, raw.header, raw.text);
    memo.remember(target, raw.text, res.body);
    return res;
  };

  const send: Send = async (req) => {
    if (req.method === "GET" && req.body === undefined) return read(req);
    const { request, agent: dispatcher } = await loadUndici();
    // A timer cleared on completion rather than AbortSignal.timeout: that one's timer stays
    // pending for the whole timeout, one per request (20,000 alive in a large plan).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const res = await request(buildUrl(base, req), {
        method: req.method,
        headers: buildHeaders(options, req),
        body: req.body === undefined ? null : JSON.stringify(req.body),
        dispatcher,
        signal: timeout.signal,
      });
      status = res.statusCode;
      headers = res.headers;
      text = await res.body.text();
    } catch (err) {
      throw transportFailure(err as { code?: unknown; message?: unknown }, req, options.baseUrl, timeout.signal.aborted, options.timeoutMs);
    } finally {
      clearTimeout(timer);
    }
    return interpret(options, req, status, (name) => headerValue(headers, name), text);
  };

  return {
    send,
    close: async () => {
      reads.close();
      if (undici) await (await undici).agent.close();
    },
  };
}

function queryString(req: ApiRequest): string {
  if (!req.query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(req.query)) params.set(key, String(value));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function headerLines(options: TransportOptions, req: ApiRequest): string {
  let lines = `accept: application/json\r\nuser-agent: ${options.userAgent}\r\n`;
  if (req.auth !== false) lines += `x-api-key: ${options.apiKey}\r\n`;
  return lines;
}

function readFailure(err: unknown, req: ApiRequest, base: URL, timeoutMs: number): Error {
  const failure = err instanceof ReadFailure ? { code: err.code, message: err.detail } : { code: "unknown" };
  return transportFailure(failure, req, base, failure.code === "READ_TIMEOUT", timeoutMs);
}

function interpret(
  options: TransportOptions,
  req: ApiRequest,
  status: number,
  header: (name: string) => string | undefined,
  text: string,
): ApiResponse {
  const context = { method: req.method, path: req.path, status };
  if (status >= 300 && status < 400) {
    const target = originOf(header("location"), options.baseUrl);
    throw new RedirectRefusedError(
      `Cube API ${status} on ${req.method} ${req.path}: redirect${target ? ` to ${target}` : ""} refused (redirects are never followed)`,
      context,
      target,
    );
  }
  const parsed = parseBody(text);
  if (status >= 200 && status < 300) {
    if (!parsed.ok) throw new InvalidResponseError(`Cube API ${req.method} ${req.path}: response body is not JSON`, context);
    return { status, body: parsed.value, replayed: header("idempotency-replayed") === "true" };
  }
  const body = parsed.ok ? parsed.value : text.slice(0, 200);
  const retryAfterSeconds = parseRetryAfter(header("retry-after"), options.now());
  throw errorFromResponse({ method: req.method, path: req.path, status, body, retryAfterSeconds }, options.redact);
}
