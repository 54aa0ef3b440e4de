/**
 * Connecting the CLI to an API: the real one (credentials from the environment) or the
 * embedded emulator started in this process (--emulator).
 */
import { join } from "node:path";
import type { CubeApi } from "../client/api.js";
import { clientConfigFromEnv, createClient, DEFAULT_RATE_LIMIT as CLIENT_DEFAULT_RATE_LIMIT, type ClientConfig } from "../client/index.js";
import type { IdempotencyJournal } from "../engine/types.js";
import type { RunningEmulator } from "../emulator/index.js";
import { CliError } from "./errors.js";
import type { CliIo } from "./io.js";
import { FileJournal } from "./journal.js";
import type { RateLimit } from "./rate-limit.js";

export { parseRateLimit, type RateLimit } from "./rate-limit.js";

export const DEFAULT_RATE_LIMIT: RateLimit = CLIENT_DEFAULT_RATE_LIMIT;

export const EMULATOR_DEFAULTS = { apiKey: "kro_emulator_local", spaceId: "space-local", clockSpeed: 20 } as const;

export interface ConnectOptions {
  emulator: boolean;
  rateLimit?: RateLimit;
  cwd: string;
}

export interface Connection {
  client: CubeApi;
  spaceId: string;
  journal: IdempotencyJournal;
  close(): Promise<void>;
  emulator?: RunningEmulator;
}

export function stateDir(cwd: string): string {
  return join(cwd, ".cubeform");
}

export async function connect(options: ConnectOptions, io: CliIo): Promise<Connection> {
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const journal = new FileJournal(join(stateDir(options.cwd), "journal.json"));
  if (!options.emulator) {
    const client = createClient({ ...configFromEnv(io.env), rateLimit });
    try {
      return { client, spaceId: await client.spaceId(), journal, close: () => client.close() };
    } catch (e) {
      await client.close();
      throw e;
    }
  }
  const statePath = join(stateDir(options.cwd), "emulator-state.json");
  // Loaded only here: a run against the real API never pays for the emulator's modules.
  const { startEmulator } = await import("../emulator/index.js");
  const emulator = await startEmulator({ statePath, ...EMULATOR_DEFAULTS, ...(options.rateLimit ? { rateLimit } : {}) });
  try {
    const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, spaceId: emulator.spaceId, rateLimit });
    const close = async () => {
      await client.close();
      await emulator.close();
    };
    return { client, spaceId: emulator.spaceId, journal, emulator, close };
  } catch (e) {
    await emulator.close();
    throw e;
  }
}

function configFromEnv(env: CliIo["env"]): ClientConfig {
  try {
    return clientConfigFromEnv(env);
  } catch (e) {
    if ((e as { code?: unknown }).code !== "config") throw e;
    throw new CliError("no_api_key", `${(e as Error).message}, or pass --emulator to use the local emulator`);
  }
}
