/**
 * `cubeform __complete cubes`: the live cube names, one a line, for the shell completion scripts (reconciler/completion.ts).
 * Run at Tab time, so it never shows an error and never hangs: one list request with no retries, bounded by a short timeout;
 * on any failure (no key, API down, refused key, timeout) it prints nothing and exits 0.
 */
import { clientConfigFromEnv, createClient, type ClientConfig } from "../../client/light.js";
import type { CliIo } from "../io.js";
import { credentialsFrom } from "../session/credentials.js";

/** The whole run, credentials to last name; Tab must answer at once. */
export const COMPLETE_TIMEOUT_MS = 2000;

/** The API's rule for cube names (schema/common.ts CubeName): nothing a shell would expand or split, so safe to print as is. */
const SAFE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

export async function runCompleteCubes(io: CliIo): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), COMPLETE_TIMEOUT_MS);
  });
  try {
    const names = await Promise.race([cubeNames(io), timeout]);
    if (names.length > 0) io.stdout.write(`${names.join("\n")}\n`);
  } catch {
    // Nothing: a completion that fails offers no names.
  } finally {
    clearTimeout(timer);
  }
  return 0;
}

async function cubeNames(io: CliIo): Promise<string[]> {
  const config = credentials(io.env);
  if (config === undefined) return [];
  const client = createClient({ ...config, env: io.env, connections: 1, timeoutMs: COMPLETE_TIMEOUT_MS, retry: { maxRetries: 0 } });
  try {
    const { cubes } = await client.listCubesPage(1, 100);
    const names = cubes.filter((c) => c.state !== "deleted" && SAFE_NAME.test(c.name)).map((c) => c.name);
    return [...new Set(names)].sort();
  } finally {
    void client.close().catch(() => undefined);
  }
}

/** The same key, space and URL as every other command (variables, else the krova CLI's saved context); undefined for none. */
function credentials(env: CliIo["env"]): ClientConfig | undefined {
  try {
    return clientConfigFromEnv(env);
  } catch {
    const baseUrl = env.CUBE_API_URL?.trim() || env.KROVA_BASE_URL?.trim() || undefined;
    const spaceId = env.CUBE_SPACE_ID?.trim() || env.KROVA_SPACE_ID?.trim() || undefined;
    return credentialsFrom({ ...(baseUrl ? { baseUrl } : {}), ...(spaceId ? { spaceId } : {}) }, env)?.config;
  }
}
