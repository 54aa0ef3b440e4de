/**
 * One HTTP exchange through the client's dispatcher (no retries, no pacing). A non-2xx answer becomes a typed error; a 3xx is
 * never followed (redirect_refused), so the X-API-KEY header cannot be carried to another origin.
 */
import type { Dispatcher } from "undici";
import type { Proxy } from "./dispatcher.js";
import { errorFromResponse, InvalidResponseError, NetworkError, RedirectRefusedError, TimeoutError } from "./errors.js";
import { networkError } from "./network-failure.js";
import { cutShort, type Redactor } from "../system/redact.js";
import { tryOr } from "../system/files.js";
import type { ReadMemo, Remembered } from "./read-memo.js";

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
  /** How long the whole call (resends included) may take; else each exchange has the client's timeout. */
  timeoutMs?: number;
  /** Epoch ms that timeoutMs ends at (set when the call starts). */
  deadline?: number;
}

export interface ApiResponse {
  status: number;
  body: unknown;
  /** The server answered from its idempotency store (Idempotency-Replayed: true). */
  replayed: boolean;
  /** The read memo's entry of this answer (a watch's GET), where the client keeps what it validated the body into. */
  remembered?: Remembered;
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
  /** Every request goes through it (client/dispatcher.ts: proxies, CA file). */
  dispatcher: Dispatcher;
  /** The proxy requests to the API go through, named in errors. */
  proxy?: Proxy;
  /** Unchanged answers to GETs are not parsed again (watch; see read-memo.ts). */
  memo?: ReadMemo;
}

/** Retry-After is delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - nowMs) / 1000);
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function queryString(req: ApiRequest): string {
  if (!req.query) return "";
  const text = new URLSearchParams(Object.entries(req.query).map(([key, value]): [string, string] => [key, String(value)])).toString();
  return text === "" ? "" : `?${text}`;
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
  return location === undefined ? undefined : tryOr(() => new URL(location, base).origin, undefined);
}

/** A failure before an answer: a timeout, or a NetworkError naming the API's origin and the cause. */
function transportFailure(failure: { code?: unknown; message?: unknown }, req: ApiRequest, options: TransportOptions): Error {
  const base = options.baseUrl;
  const context = { method: req.method, path: req.path, origin: base.origin };
  const where = `Cube API ${req.method} ${req.path} at ${base.origin}${options.proxy ? ` through the proxy ${options.proxy.shown}` : ""}`;
  if (failure.code === "UND_ERR_HEADERS_TIMEOUT" || failure.code === "UND_ERR_BODY_TIMEOUT")
    return new TimeoutError(`${where} timed out: no answer within ${req.timeoutMs ?? options.timeoutMs} ms`, context);
  return networkError(failure, req.method, req.path, base, options.proxy);
}

function where(req: ApiRequest, options: TransportOptions): string {
  return `Cube API ${req.method} ${req.path}: the answer from ${options.baseUrl.host}${options.proxy ? ` (through the proxy ${options.proxy.shown})` : ""}`;
}

/** Resent like any failed connection (retry.ts): a GET always, a mutation only with its Idempotency-Key. */
function cutShortError(cut: CutShort, req: ApiRequest, options: TransportOptions): NetworkError {
  const of = cut.expected === undefined ? "" : ` of ${cut.expected}`;
  const message = `${where(req, options)} (HTTP ${cut.status}) was cut short: the connection closed after ${cut.received}${of} bytes`;
  return new NetworkError(message, {
    method: req.method,
    path: req.path,
    status: cut.status,
    origin: options.baseUrl.origin,
    reason: "cut_short",
  });
}

/** cubeform sends no Accept-Encoding: an encoded body is something between (a proxy) or a server that ignores it, and is not read. */
function refuseEncoded(encoding: string | undefined, req: ApiRequest, options: TransportOptions, status: number): void {
  const coding = encoding?.trim().toLowerCase();
  if (coding === undefined || coding === "" || coding === "identity") return;
  throw new InvalidResponseError(
    `${where(req, options)} was ${visibleText(coding)}-encoded, which cubeform does not ask for (it sends no Accept-Encoding); is a proxy compressing it?`,
    { method: req.method, path: req.path, status },
  );
}

const visibleText = (text: string): string => cutShort(text.replace(/[^\x21-\x7e]/g, "?"), 40);

export interface Transport {
  send: Send;
  close(): Promise<void>;
}

interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** The connection ended after the final answer's head, before all of its body (the bytes its Content-Length promised). */
class CutShort extends Error {
  constructor(
    readonly status: number,
    readonly received: number,
    readonly expected: number | undefined,
  ) {
    super("answer cut short");
  }
}

/** One exchange through undici's dispatch, the body gathered as it comes: a stream per answer is a quarter of a plan's client CPU (bench/RESULTS.md). */
function exchange(dispatcher: Dispatcher, request: Dispatcher.DispatchOptions): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: Exchange["headers"] = {};
    const chunks: Buffer[] = [];
    let received = 0;
    dispatcher.dispatch(request, {
      // undici takes a handler for its current interface by this method.
      onRequestStart: () => {},
      onResponseStart(_controller, statusCode, responseHeaders) {
        // A 1xx (102 Processing, 103 Early Hints) is a preamble: the final answer follows on the same request.
        if (statusCode < 200) return;
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData: (_controller, chunk) => {
        received += chunk.length;
        chunks.push(chunk);
      },
      onResponseEnd: () => {
        const answer = { status, headers, text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8") };
        // undici frees the connection an event-loop turn after the answer (client-h1.js): the request it leads to then reuses it.
        queueMicrotask(() => setImmediate(resolve, answer));
      },
      onResponseError: (_controller, error) => {
        if (status === 0 || (error as { code?: unknown }).code === "UND_ERR_BODY_TIMEOUT") return reject(error);
        const length = Number(headerValue(headers, "content-length"));
        reject(new CutShort(status, received, Number.isSafeInteger(length) ? length : undefined));
      },
    });
  });
}

/** A call with a deadline bounds each exchange by the time left (undici's per-request timeouts); else the dispatcher's apply. */
function timeoutsOf(req: ApiRequest): { headersTimeout?: number; bodyTimeout?: number } {
  if (req.deadline === undefined) return {};
  const left = Math.max(1, req.deadline - Date.now());
  return { headersTimeout: left, bodyTimeout: left };
}

export function createTransport(options: TransportOptions): Transport {
  const origin = options.baseUrl.origin;
  const basePath = options.baseUrl.pathname.replace(/\/+$/, "");
  const { dispatcher, memo } = options;

  // The dispatcher's headersTimeout and bodyTimeout bound each exchange: no timer or AbortController per request (20,000 in a large plan).
  const send: Send = async (req) => {
    const path = basePath + req.path + queryString(req);
    let answer: Exchange;
    try {
      answer = await exchange(dispatcher, {
        origin,
        path,
        method: req.method,
        headers: buildHeaders(options, req),
        body: req.body === undefined ? null : JSON.stringify(req.body),
        ...timeoutsOf(req),
      });
    } catch (err) {
      if (err instanceof CutShort) throw cutShortError(err, req, options);
      throw transportFailure(err as { code?: unknown; message?: unknown }, req, options);
    }
    const { status, headers, text } = answer;
    const header = (name: string) => headerValue(headers, name);
    refuseEncoded(header("content-encoding"), req, options, status);
    if (memo === undefined || req.method !== "GET" || status < 200 || status >= 300) return interpret(options, req, status, header, text);
    const same = memo.same(path, text);
    if (same !== undefined) return { status, body: same.body, replayed: header("idempotency-replayed") === "true", remembered: same };
    const res = interpret(options, req, status, header, text);
    return { ...res, remembered: memo.remember(path, text, res.body) };
  };

  return { send, close: () => dispatcher.close() };
}

function contentTypeOf(header: (name: string) => string | undefined): string {
  const type = header("content-type");
  return type === undefined ? "no Content-Type" : `Content-Type ${visibleText(type)}`;
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
    if (!parsed.ok)
      throw new InvalidResponseError(
        `${where(req, options)} (HTTP ${status}, ${Buffer.byteLength(text)} bytes, ${contentTypeOf(header)}) is not JSON`,
        context,
      );
    return { status, body: parsed.value, replayed: header("idempotency-replayed") === "true" };
  }
  const body = parsed.ok ? parsed.value : cutShort(text, 200);
  const retryAfterSeconds = parseRetryAfter(header("retry-after"), options.now());
  throw errorFromResponse({ method: req.method, path: req.path, status, body, retryAfterSeconds }, options.redact);
}
