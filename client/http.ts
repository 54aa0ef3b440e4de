/**
 * Composition of the HTTP layers, in one place:
 *   retry (5xx, network) → throttle (pacing, 429) → instrument (stats, logs) → transport (undici)
 */
import { checkBaseUrl } from "./config.js";
import { ConfigError, isCubeApiError } from "./errors.js";
import { redactCredentialHeaders, redactorFor, type Redactor } from "../system/redact.js";
import { DEFAULT_RATE_LIMIT, MutationPacer, tell } from "./pacer.js";
import { DEFAULT_RETRY, withRetry, type RetryOptions } from "./retry.js";
import { withThrottle, type RateWaitListener } from "./throttle.js";
import { sleep as systemSleep } from "../system/time.js";
import { createNetwork, proxyCredentials, type Network } from "./dispatcher.js";
import { createTransport, isMutating, type ApiRequest, type ApiResponse, type Send, type Transport } from "./transport.js";
import type { ClientStats } from "./api.js";
import type { ReadMemo } from "./read-memo.js";

export type ClientLogEventType = "request" | "retry" | "rate_limited" | "paced";

/** What the client reports to an injected logger. Never headers, never bodies. */
export interface ClientLogEvent {
  type: ClientLogEventType;
  method: string;
  path: string;
  status?: number;
  /** 1-based number of the send this event belongs to (for retry: the upcoming send). */
  attempt?: number;
  waitMs?: number;
}

export type RetrySettings = Partial<Pick<RetryOptions, "maxRetries" | "baseDelayMs" | "maxDelayMs">>;

export interface HttpOptions {
  baseUrl: string;
  apiKey: string;
  /** Share one pacer across clients (e.g. one per process); else one is made from `rateLimit`. */
  pacer?: MutationPacer;
  /** Mutations per window when no pacer is passed. Default 10 per 60 000 ms. */
  rateLimit?: { limit: number; windowMs: number };
  retry?: RetrySettings;
  /** Per request, headers and body. Default 30 000 ms. */
  timeoutMs?: number;
  logger?: (event: ClientLogEvent) => void;
  /** Hears each wait for the rate limit as it starts and ends (the CLI shows a countdown). */
  rateWaits?: RateWaitListener;
  userAgent?: string;
  /** Backoff and Retry-After waits (tests pass one that returns at once; a `pacer` has its own). */
  sleep?: (ms: number) => Promise<void>;
  /** Aborted when the run is asked to stop: nothing new is sent (StoppedError); a request in flight completes. */
  signal?: AbortSignal;
  /** Kept by a long-running reader (watch): an unchanged GET answer is not parsed again (read-memo.ts). */
  readMemo?: ReadMemo;
  /** Where proxy settings and CUBE_CA_FILE are read from (client/dispatcher.ts). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Connections per origin, hence requests in flight (default DEFAULT_CONNECTIONS). */
  connections?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_USER_AGENT = "cubeform/0.1 (+https://github.com/cubeform)";
/** Connections per origin (requests in flight): where the round trip bounds a plan's reads, time falls with it (`npm run bench -- --sweep`). */
export const DEFAULT_CONNECTIONS = 64;
/** What reads widen to at most on a slow network when no count was given (reconciler/session/session.ts cubesInFlightFor). */
export const MAX_DEFAULT_CONNECTIONS = 256;

export type CallRequest = Omit<ApiRequest, "progress">;

export class HttpClient {
  readonly stats: ClientStats = { reads: 0, mutations: 0, retries: 0, rateLimited: 0 };
  readonly pacer: MutationPacer;
  /** Every request of this client goes through its dispatcher, transfers included. */
  readonly network: Network;
  private readonly transport: Transport;
  private readonly send: Send;
  private readonly redact: Redactor;
  private readonly log: (event: ClientLogEvent) => void;
  /** Whether anyone listens: a read's success event is not even built otherwise (20,000 of them in a large plan). */
  private readonly logging: boolean;

  constructor(options: HttpOptions) {
    const baseUrl = checkBaseUrl(options.baseUrl);
    if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") throw new ConfigError("No API key given");
    if (/[\r\n]/.test(options.apiKey)) throw new ConfigError("The API key contains a line break");
    const sleep = options.sleep ? endingOnAbort(options.sleep, options.signal) : (ms: number) => systemSleep(ms, options.signal);
    const env = options.env ?? process.env;
    const secrets = redactorFor(options.apiKey, ...proxyCredentials(env));
    this.redact = (text) => redactCredentialHeaders(secrets(text));
    this.log = safeLogger(options.logger);
    this.logging = options.logger !== undefined;
    this.pacer = options.pacer ?? new MutationPacer({ ...(options.rateLimit ?? DEFAULT_RATE_LIMIT) });
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.network = createNetwork(env, { connections: options.connections ?? DEFAULT_CONNECTIONS, timeoutMs });
    const proxy = this.network.proxyFor(baseUrl);
    this.transport = createTransport({
      baseUrl,
      apiKey: options.apiKey,
      timeoutMs,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      redact: this.redact,
      now: Date.now,
      dispatcher: this.network.dispatcher,
      ...(proxy ? { proxy } : {}),
      ...(options.readMemo ? { memo: options.readMemo } : {}),
    });
    this.send = this.compose(this.transport.send, options, sleep);
  }

  private compose(transport: Send, options: HttpOptions, sleep: (ms: number) => Promise<void>): Send {
    const maxRetries = options.retry?.maxRetries ?? DEFAULT_RETRY.maxRetries;
    const throttled = withThrottle(this.instrument(transport), {
      pacer: this.pacer,
      sleep,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.rateWaits ? { waits: options.rateWaits } : {}),
      onRateLimit: (waitMs, req, attempt) => {
        this.log({ ...eventBase("rate_limited", req), status: 429, waitMs });
        if (attempt > maxRetries) return false;
        this.stats.retries++;
        return true;
      },
      onPaced: (req, waitMs) => this.log({ ...eventBase("paced", req), waitMs }),
    });
    return withRetry(throttled, {
      maxRetries,
      baseDelayMs: options.retry?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: options.retry?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
      sleep,
      onRetry: (req, error, delayMs) => {
        this.stats.retries++;
        this.log({
          ...eventBase("retry", req),
          attempt: req.progress.retries + 2,
          waitMs: delayMs,
          ...(error.status ? { status: error.status } : {}),
        });
      },
    });
  }

  /** Innermost layer: counts every send and logs its outcome. */
  private instrument(next: Send): Send {
    return async (req) => {
      if (isMutating(req.method)) this.stats.mutations++;
      else this.stats.reads++;
      try {
        const res = await next(req);
        if (this.logging) this.log({ ...eventBase("request", req), status: res.status });
        return res;
      } catch (err) {
        const status = isCubeApiError(err) ? err.status : undefined;
        if (status === 429) this.stats.rateLimited++;
        this.log({ ...eventBase("request", req), ...(status === undefined ? {} : { status }) });
        throw err;
      }
    };
  }

  /** One API call with every layer; a final error carries how many resends it took. */
  async call(request: CallRequest): Promise<ApiResponse> {
    const req: ApiRequest = {
      ...request,
      progress: { retries: 0 },
      ...(request.timeoutMs === undefined ? {} : { deadline: Date.now() + request.timeoutMs }),
    };
    try {
      return await this.send(req);
    } catch (err) {
      if (isCubeApiError(err)) err.retries = req.progress.retries;
      throw err;
    }
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** A sleep that ends early when `signal` aborts (the next send then fails with StoppedError). */
function endingOnAbort(sleep: (ms: number) => Promise<void>, signal: AbortSignal | undefined): (ms: number) => Promise<void> {
  if (signal === undefined) return sleep;
  return (ms) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const onAbort = (): void => resolve();
      signal.addEventListener("abort", onAbort, { once: true });
      sleep(ms).then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, resolve);
    });
}

function eventBase(type: ClientLogEventType, req: ApiRequest): ClientLogEvent {
  return { type, method: req.method, path: req.path, attempt: req.progress.retries + 1 };
}

/** A failing logger must not fail the request it reports on. */
function safeLogger(logger: ((event: ClientLogEvent) => void) | undefined): (event: ClientLogEvent) => void {
  return logger ? (event) => tell(() => logger(event)) : () => {};
}
