/**
 * Module state of the provider runtime, one per plugin process: the stack config from `configure()` over the environment
 * (read at call time), and ONE client, hence ONE MutationPacer: Pulumi runs resources in parallel on one per-IP budget.
 */
import { clientConfigFromEnv, createClient, DEFAULT_RATE_LIMIT, MutationPacer, type CubeApi } from "../client/index.js";
import { parseDuration, parseRate, type Rate } from "../system/time.js";

/** The subset of Pulumi's dynamic Config the runtime reads. */
export interface ConfigReader {
  get(key: string): string | undefined;
}

export interface ProviderSettings {
  apiKey?: string;
  apiUrl?: string;
  spaceId?: string;
  rateLimit?: Rate;
  waitTimeoutMs: number;
  pollIntervalMs: number;
  /** Policy files (`cubeform:policy`, separated as PATH is); else CUBEFORM_POLICY, read at each check. */
  policy?: string;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 300_000;
export const DEFAULT_POLL_INTERVAL_MS = 2_000;

type Env = Record<string, string | undefined>;

let cached: { signature: string; client: CubeApi & { close(): Promise<void> } } | undefined;
let pacer: MutationPacer | undefined;

/** Stack config `cubeform:*` over the environment. */
export function settingsFrom(config: ConfigReader, env: Env): ProviderSettings {
  const get = (key: string) => config.get(`cubeform:${key}`)?.trim() || undefined;
  const next: ProviderSettings = { waitTimeoutMs: DEFAULT_WAIT_TIMEOUT_MS, pollIntervalMs: DEFAULT_POLL_INTERVAL_MS };
  for (const key of ["apiKey", "apiUrl", "spaceId", "policy"] as const) {
    const value = get(key);
    if (value) next[key] = value;
  }
  const rate = get("rateLimit");
  const envRate = env.CUBE_RATE_LIMIT?.trim();
  if (rate) next.rateLimit = parseRate(rate, "cubeform:rateLimit");
  else if (envRate) next.rateLimit = parseRate(envRate, "CUBE_RATE_LIMIT");
  const wait = get("waitTimeout");
  if (wait) next.waitTimeoutMs = parseDuration(wait, "cubeform:waitTimeout", "s");
  const poll = get("pollInterval");
  if (poll) next.pollIntervalMs = parseDuration(poll, "cubeform:pollInterval", "s");
  return next;
}

/** Until configure() runs, the environment alone. */
let settings: ProviderSettings = settingsFrom({ get: () => undefined }, process.env);

export function configureSettings(next: ProviderSettings): void {
  settings = next;
}

export function currentSettings(): ProviderSettings {
  return settings;
}

/** Config wins field by field; the environment fills the rest (and must at least give the key). */
function resolveClientConfig(): { baseUrl: string; apiKey: string; spaceId?: string } {
  const env: Env = { ...process.env };
  if (settings.apiKey) env.CUBE_API_KEY = settings.apiKey;
  if (settings.apiUrl) env.CUBE_API_URL = settings.apiUrl;
  if (settings.spaceId) env.CUBE_SPACE_ID = settings.spaceId;
  try {
    return clientConfigFromEnv(env);
  } catch {
    throw new Error(
      "cubeform: no API key. Set it with `pulumi config set --secret cubeform:apiKey <key>` or the CUBE_API_KEY environment variable.",
    );
  }
}

/** The process's client, rebuilt only when the resolved endpoint or key changes. */
export function apiClient(): CubeApi {
  const config = resolveClientConfig();
  const signature = JSON.stringify([config.baseUrl, config.apiKey, config.spaceId ?? null]);
  if (cached?.signature !== signature) {
    void cached?.client.close();
    pacer ??= new MutationPacer(settings.rateLimit ?? DEFAULT_RATE_LIMIT);
    cached = { signature, client: createClient({ ...config, pacer }) };
  }
  return cached.client;
}
