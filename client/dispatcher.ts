/**
 * The one HTTP dispatcher of a client: undici's EnvHttpProxyAgent (its plain Agent when no proxy is set), so every request
 * (reads, mutations, transfers, login) honours HTTP_PROXY, HTTPS_PROXY, NO_PROXY and ALL_PROXY (either case) as curl and git
 * do: an http:// target is forwarded by the proxy, an https:// one goes through a CONNECT tunnel. CUBE_CA_FILE adds a private
 * CA's PEM certificates (e.g. a TLS-inspecting proxy's) to Node's roots and NODE_EXTRA_CA_CERTS.
 * A loopback target (localhost, 127.0.0.0/8, ::1) always goes direct, as Go's ProxyFromEnvironment (Terraform's) does: a proxy
 * elsewhere cannot reach this machine's loopback. CUBEFORM_PROXY_LOOPBACK=1 sends it through the proxy too (a local debugging
 * proxy).
 */
import { Agent, Dispatcher, EnvHttpProxyAgent, Pool } from "undici";
import { nodeTls } from "../system/builtins.js";
import { FileReadError, readRegularText, type ReadLimit } from "../system/files.js";
import { isLoopbackHost } from "./config.js";
import { ConfigError } from "./errors.js";
import { urlCredentials } from "../system/redact.js";

type Env = NodeJS.ProcessEnv | Record<string, string | undefined>;

export interface Proxy {
  /** The proxy's URL without credentials, for messages. */
  shown: string;
  /** The variable it came from, e.g. HTTPS_PROXY. */
  variable: string;
}

/** How a client reaches the network: the dispatcher every request goes through, and which proxy it uses for a URL. */
export interface Network {
  dispatcher: Dispatcher;
  proxyFor(target: URL): Proxy | undefined;
  /** undici's request() of a full URL through the dispatcher (transfers, login). */
  request(url: string, options: Omit<Dispatcher.RequestOptions, "origin" | "path">): Promise<Dispatcher.ResponseData>;
}

export interface DispatcherOptions {
  /** Connections per origin (each carries one request at a time). */
  connections: number;
  /** No answer's head, or no body bytes, for this long: the request fails (UND_ERR_*_TIMEOUT). */
  timeoutMs?: number;
}

/** A CA bundle is a few hundred KB at most; anything larger is not one. */
const CA_FILE: ReadLimit = { maxBytes: 4 * 1024 * 1024, what: "a CA bundle" };

function setting(env: Env, name: string): { value: string; variable: string } | undefined {
  for (const variable of [name.toLowerCase(), name]) {
    const value = env[variable]?.trim();
    if (value) return { value, variable };
  }
  return undefined;
}

function proxySetting(env: Env, protocol: "http:" | "https:"): { value: string; variable: string } | undefined {
  return setting(env, protocol === "https:" ? "HTTPS_PROXY" : "HTTP_PROXY") ?? setting(env, "ALL_PROXY");
}

export function createNetwork(env: Env, options: DispatcherOptions): Network {
  const dispatcher = createDispatcher(env, options);
  return {
    dispatcher,
    proxyFor: (target) => proxyFor(target, env),
    request: (url, options) => {
      const target = new URL(url);
      return dispatcher.request({ ...options, origin: target.origin, path: target.pathname + target.search });
    },
  };
}

let processNetwork: Network | undefined;

/** The process's network from process.env, for a transfer or login that was given none (made once). */
export function environmentNetwork(): Network {
  return (processNetwork ??= createNetwork(process.env, { connections: 8 }));
}

function createDispatcher(env: Env, options: DispatcherOptions): Dispatcher {
  const tls = caOptions(env);
  const httpProxy = proxySetting(env, "http:")?.value;
  const httpsProxy = proxySetting(env, "https:")?.value;
  const timeouts = options.timeoutMs === undefined ? {} : { headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs };
  const pool = { connections: options.connections, keepAliveTimeout: 10_000, ...timeouts };
  // Every pool gets the limit, the forwarding proxy's too (undici's own factory makes that one without it).
  const factory = (origin: string | URL, opts: object) => new Pool(origin, { ...opts, ...pool });
  // No proxy set: the agent EnvHttpProxyAgent would route every request to, without its URL parse and NO_PROXY match per request.
  const direct = () => new Agent({ ...pool, factory, ...(tls ? { connect: tls } : {}) });
  if (httpProxy === undefined && httpsProxy === undefined) return direct();
  const proxied = new EnvHttpProxyAgent({
    ...pool,
    factory,
    // Plain http targets are forwarded, not tunnelled: what every forward proxy accepts.
    proxyTunnel: false,
    httpProxy: checkedProxy(httpProxy) ?? "",
    httpsProxy: checkedProxy(httpsProxy) ?? "",
    noProxy: setting(env, "NO_PROXY")?.value ?? "",
    ...(tls ? { connect: tls, requestTls: tls, proxyTls: tls } : {}),
  } as EnvHttpProxyAgent.Options);
  return proxiesLoopback(env) ? proxied : new LoopbackDirect(direct(), proxied);
}

const proxiesLoopback = (env: Env): boolean => env.CUBEFORM_PROXY_LOOPBACK?.trim() === "1";

/** Sends requests to a loopback origin direct, every other through the proxy agent. */
class LoopbackDirect extends Dispatcher {
  constructor(
    private readonly direct: Dispatcher,
    private readonly proxied: Dispatcher,
  ) {
    super();
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = options.origin === undefined ? undefined : new URL(String(options.origin));
    return (origin !== undefined && isLoopbackHost(origin.hostname) ? this.direct : this.proxied).dispatch(options, handler);
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const closed = Promise.all([this.direct.close(), this.proxied.close()]).then(() => undefined);
    if (callback === undefined) return closed;
    void closed.then(callback, callback);
  }

  override destroy(): Promise<void>;
  override destroy(error: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(error: Error | null, callback: () => void): void;
  override destroy(first?: Error | null | (() => void), second?: () => void): Promise<void> | void {
    const error = typeof first === "function" ? null : (first ?? null);
    const callback = typeof first === "function" ? first : second;
    const destroyed = Promise.all([this.direct.destroy(error), this.proxied.destroy(error)]).then(() => undefined);
    if (callback === undefined) return destroyed;
    void destroyed.then(callback, callback);
  }
}

/** The credentials of every proxy setting, in each form a request or message can carry them (system/redact.ts urlCredentials). */
export function proxyCredentials(env: Env): string[] {
  return [proxySetting(env, "http:"), proxySetting(env, "https:")].flatMap((found) =>
    found === undefined ? [] : urlCredentials(found.value),
  );
}

/** curl and git take a bare host:port as an http proxy. */
const withScheme = (value: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);

function checkedProxy(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = withScheme(value);
  try {
    new URL(url);
  } catch {
    throw new ConfigError(`The proxy setting ${JSON.stringify(shownUrl(value))} is not a URL`);
  }
  return url;
}

/** The proxy a request to `target` goes through (the same rules as the dispatcher's), or undefined when it goes direct. */
export function proxyFor(target: URL, env: Env): Proxy | undefined {
  const found = proxySetting(env, target.protocol === "https:" ? "https:" : "http:");
  if (found === undefined || bypassed(target, setting(env, "NO_PROXY")?.value ?? "")) return undefined;
  if (isLoopbackHost(target.hostname) && !proxiesLoopback(env)) return undefined;
  return { shown: shownUrl(found.value), variable: found.variable };
}

function bypassed(target: URL, noProxy: string): boolean {
  if (noProxy === "*") return true;
  const host = target.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = Number(target.port) || (target.protocol === "https:" ? 443 : 80);
  return noProxy
    .split(/[,\s]/)
    .filter(Boolean)
    .some((entry) => {
      const [, name = entry, entryPort] = /^(.+):(\d+)$/.exec(entry) ?? [];
      if (entryPort !== undefined && Number(entryPort) !== port) return false;
      const bare = name
        .replace(/^\*?\./, "")
        .replace(/^\[|\]$/g, "")
        .toLowerCase();
      return host === bare || host.endsWith(`.${bare}`);
    });
}

/** A URL as it may be shown: without user name and password. */
export function shownUrl(value: string): string {
  try {
    const url = new URL(withScheme(value));
    url.username = "";
    url.password = "";
    return url.origin === "null" ? url.href : url.origin;
  } catch {
    return value.replace(/\/\/[^@/]*@/, "//");
  }
}

function caOptions(env: Env): { ca: string[] } | undefined {
  const file = env.CUBE_CA_FILE?.trim();
  if (!file) return undefined;
  const text = readCaFile("CUBE_CA_FILE", file);
  if (!text.includes("-----BEGIN CERTIFICATE-----"))
    throw new ConfigError(`CUBE_CA_FILE ${file} holds no PEM certificate ("-----BEGIN CERTIFICATE-----")`);
  // Setting `ca` replaces Node's store: keep its roots and NODE_EXTRA_CA_CERTS beside the file.
  const extra = env.NODE_EXTRA_CA_CERTS?.trim();
  return { ca: [...nodeTls().rootCertificates, ...(extra ? [readCaFile("NODE_EXTRA_CA_CERTS", extra)] : []), text] };
}

function readCaFile(variable: string, file: string): string {
  try {
    return readRegularText(file, CA_FILE);
  } catch (error) {
    if (error instanceof FileReadError)
      throw new ConfigError(`${variable} ${file}${error.refusal === "not_regular" ? " is " : ": "}${error.reason}`);
    throw error;
  }
}
