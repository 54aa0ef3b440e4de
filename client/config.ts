/** Client configuration: credentials from the environment, and the base URL's check. */
import { ConfigError, InsecureUrlError } from "./errors.js";

export const DEFAULT_BASE_URL = "https://krova.cloud/api/v1";

export interface ClientConfig {
  baseUrl: string;
  apiKey: string;
  spaceId?: string;
}

type Env = NodeJS.ProcessEnv | Record<string, string | undefined>;

function firstSet(env: Env, names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** CUBE_API_KEY / CUBE_SPACE_ID / CUBE_API_URL, else the official Krova CLI's KROVA_API_KEY / KROVA_SPACE_ID / KROVA_BASE_URL. */
export function clientConfigFromEnv(env: Env): ClientConfig {
  const apiKey = firstSet(env, ["CUBE_API_KEY", "KROVA_API_KEY"]);
  if (apiKey === undefined) throw new ConfigError("No API key: set CUBE_API_KEY (or KROVA_API_KEY, as the official Krova CLI uses)");
  const baseUrl = firstSet(env, ["CUBE_API_URL", "KROVA_BASE_URL"]) ?? DEFAULT_BASE_URL;
  const spaceId = firstSet(env, ["CUBE_SPACE_ID", "KROVA_SPACE_ID"]);
  return spaceId === undefined ? { baseUrl, apiKey } : { baseUrl, apiKey, spaceId };
}

/** localhost (and *.localhost), 127.0.0.0/8, ::1 and IPv4-mapped 127.x, in any spelling: this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  if (!host.includes(":")) return false;
  // The URL parser writes an IPv6 address one way: [::1], and [::ffff:7f00:1] for ::ffff:127.0.0.1.
  const canonical = URL.canParse(`http://[${host}]`) ? new URL(`http://[${host}]`).hostname : "";
  return canonical === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:/.test(canonical);
}

/** Parse and check the base URL: https anywhere, plain http only to loopback. */
export function checkBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`Invalid API base URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.username || url.password) throw new ConfigError("The API base URL must not contain credentials");
  if (url.search || url.hash) throw new ConfigError("The API base URL must not contain a query or fragment");
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return url;
  if (url.protocol === "http:")
    throw new InsecureUrlError(`Refusing plain http to ${url.host}: use https (http is allowed only to loopback hosts)`);
  throw new ConfigError(`Unsupported API base URL scheme ${url.protocol} (use https)`);
}
