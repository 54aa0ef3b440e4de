/** The API's CLI device login (RFC 8628): start, show the user code, poll until approved; the API key is handed to the caller, never logged. */
import type * as z from "zod/mini";
import { tryOr } from "../system/files.js";
import { sleep } from "../system/time.js";
import { DeviceLoginApproved, DeviceLoginStarted } from "../schema/index.js";
import { checkBaseUrl } from "./config.js";
import { environmentNetwork, type Network } from "./dispatcher.js";
import { CubeApiError, HttpError, InvalidResponseError, StoppedError } from "./errors.js";
import { networkError } from "./network-failure.js";
import { parseRetryAfter } from "./transport.js";

export interface DeviceLoginOptions {
  /** Shows the user what to open and which code to confirm. */
  onCode: (started: DeviceLoginStarted) => void;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
  /** Default: the process's proxies from process.env (client/dispatcher.ts). */
  network?: Network;
}

export async function deviceLogin(baseUrl: string, options: DeviceLoginOptions): Promise<DeviceLoginApproved> {
  const base = checkBaseUrl(baseUrl).toString().replace(/\/$/, "");
  const network = options.network ?? environmentNetwork();
  const started = await post(network, base, "/auth/cli/start", undefined, DeviceLoginStarted);
  options.onCode(started);
  const deadline = Date.now() + started.expiresIn * 1000;
  let interval = started.interval * 1000;
  for (;;) {
    await (options.sleep ?? ((ms) => sleep(ms, options.signal)))(interval);
    if (options.signal?.aborted) throw new StoppedError("login stopped before it was approved", {});
    if (Date.now() > deadline) throw new CubeApiError("timeout", "the login code expired before it was approved; run the login again", {});
    const res = await send(network, base, "/auth/cli/poll", { deviceCode: started.deviceCode });
    if (res.status === 200) return parse(DeviceLoginApproved, res.body, "/auth/cli/poll", 200);
    if (res.status === 428) continue;
    if (res.status === 429) {
      interval = Math.max(interval, (parseRetryAfter(res.retryAfter, Date.now()) ?? 5) * 1000);
      continue;
    }
    if (res.status === 403)
      throw new CubeApiError("forbidden", "the login was denied in the browser", { status: 403, method: "POST", path: "/auth/cli/poll" });
    if (res.status === 410)
      throw new CubeApiError("http_error", "the login code expired or was already used; run the login again", {
        status: 410,
        method: "POST",
        path: "/auth/cli/poll",
      });
    throw new HttpError(`the login poll answered HTTP ${res.status}: ${errorText(res.body)}`, {
      status: res.status,
      method: "POST",
      path: "/auth/cli/poll",
    });
  }
}

async function send(
  network: Network,
  base: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: unknown; retryAfter: string | undefined }> {
  let res: Awaited<ReturnType<Network["request"]>>;
  let text: string;
  try {
    res = await network.request(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    text = await res.body.text();
  } catch (error) {
    throw networkError(error as { code?: unknown; message?: unknown }, "POST", path, new URL(base), network.proxyFor(new URL(base)));
  }
  const parsed: unknown = tryOr(() => (text ? JSON.parse(text) : undefined), text);
  const retryAfter = res.headers["retry-after"];
  return { status: res.statusCode, body: parsed, retryAfter: typeof retryAfter === "string" ? retryAfter : undefined };
}

async function post<S extends z.ZodMiniType>(network: Network, base: string, path: string, body: unknown, schema: S): Promise<z.output<S>> {
  const res = await send(network, base, path, body);
  if (res.status !== 200)
    throw new HttpError(`${path} answered HTTP ${res.status}: ${errorText(res.body)}`, { status: res.status, method: "POST", path });
  return parse(schema, res.body, path, res.status);
}

function parse<S extends z.ZodMiniType>(schema: S, body: unknown, path: string, status: number): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw new InvalidResponseError(`${path}: unexpected response body`, { status, method: "POST", path });
  return result.data;
}

function errorText(body: unknown): string {
  return body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string"
    ? (body as { error: string }).error
    : "no details";
}
