/** Connecting the CLI to an API: the real one (credentials from the environment) or the embedded emulator started in this process (--emulator). */
import { statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { CubeApi } from "../../client/api.js";
// The client's light door: index.js also loads the archive download and the device login, which a plan never needs.
import {
  DEFAULT_RATE_LIMIT as CLIENT_DEFAULT_RATE_LIMIT,
  clientConfigFromEnv,
  createClient,
  DEFAULT_CONNECTIONS,
  FileWindowStore,
  MAX_DEFAULT_CONNECTIONS,
  MutationPacer,
  machineStateDir,
  pacingFileFor,
  ReadMemo,
  type ClientConfig,
} from "../../client/light.js";
import type { IdempotencyJournal } from "../../engine/types.js";
import type { RunningEmulator } from "../../emulator/index.js";
import { credentialsFrom } from "./credentials.js";
import { CliError } from "../errors.js";
import { isTty, writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import { rateWaitNotices, type RateWaitNotices } from "./rate-waits.js";
import { DeletionLog } from "./deletions.js";
import { FileJournal } from "./journal.js";
import { RolloutJournal } from "./rollout-journal.js";
import { SecretMemory } from "./secret-memory.js";
import type { RateLimit } from "./rate-limit.js";

export { parseRateLimit, type RateLimit } from "./rate-limit.js";

export const DEFAULT_RATE_LIMIT: RateLimit = CLIENT_DEFAULT_RATE_LIMIT;

export const EMULATOR_DEFAULTS = { apiKey: "kro_emulator_local", spaceId: "space-local", clockSpeed: 20 } as const;

export interface ConnectOptions {
  emulator: boolean;
  /** io.signal stops the client's sends (apply, watch); else the command ends its own way. */
  stopSendsOnSignal?: boolean;
  rateLimit?: RateLimit;
  cwd: string;
  /** The folder of the fleet file (projectDir): .cubeform/ is there; cwd when absent. */
  dir?: string;
  /** --state-dir: the state directory itself, instead of .cubeform/ in `dir` (relative to cwd). */
  stateDir?: string;
  /** Rounds of reads (watch): an unchanged answer is not parsed again (Connection.readMemo). */
  repeatedReads?: boolean;
  parallelism?: number;
  /** The desired state's `space:`: it wins over CUBE_SPACE_ID and the key's own space. */
  fileSpaceId?: string;
}

/** Where the space a run acts on was named: the file, a variable or krova context, or the key itself (GET /space). */
export type SpaceFrom = "file" | "environment" | "key";

export interface Connection {
  client: CubeApi;
  spaceId: string;
  journal: IdempotencyJournal;
  /** Rollout batches in flight (a run killed mid-rollout left them): the next plan resumes them. */
  rollouts: RolloutJournal;
  /** Paces this run's mutations; shared with the other processes of this machine for the real API. */
  pacer: MutationPacer;
  /** What the space lock is keyed by with the space id: the API origin, or the embedded emulator's directory. */
  lockScope: string;
  /** The user's state directory (locks, the shared pacing window). */
  machineStateDir: string;
  deletions: DeletionLog;
  secretMemory: SecretMemory;
  /** Shows the waits for the rate limit (stderr); tell it what the run is doing. */
  rateWaits: RateWaitNotices;
  parallelism: number;
  /** No count was given: reads may widen up to MAX_DEFAULT_CONNECTIONS on a slow network (the pool opens connections as used). */
  widens: boolean;
  /** With ConnectOptions.repeatedReads: call nextRound() as each round starts. */
  readMemo?: ReadMemo;
  close(): Promise<void>;
  emulator?: RunningEmulator;
  /** Where the API key came from (a variable's name, a krova config context), never the key. */
  keyFrom?: string;
  /** Where spaceId was named (a refused space names it). */
  spaceFrom: SpaceFrom;
}

/** A refused key (401/403) names where it came from: the variable or the config context, never the key. */
export function sayWhereTheKeyIsFrom(error: unknown, keyFrom: string | undefined): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (keyFrom !== undefined && (code === "unauthorized" || code === "forbidden") && error instanceof Error)
    error.message += `; the key came from ${keyFrom}`;
  return error;
}

export function stateDir(cwd: string): string {
  return join(cwd, ".cubeform");
}

/** The variable that names the state directory when --state-dir does not (a controller's volume). */
export const STATE_DIR_VARIABLE = "CUBEFORM_STATE_DIR";

/** --state-dir, else $CUBEFORM_STATE_DIR, else .cubeform/ in the project directory (cwd when none). */
export function resolveStateDir(options: Pick<ConnectOptions, "stateDir" | "dir" | "cwd">, env: CliIo["env"]): string {
  const named = options.stateDir ?? (env[STATE_DIR_VARIABLE]?.trim() || undefined);
  return named !== undefined ? resolve(options.cwd, named) : stateDir(options.dir ?? options.cwd);
}

/**
 * Where .cubeform/ (journal, secret digests, the --emulator's state) is: beside the first file -f names (in it, for a directory), so a run from
 * another folder finds the same state; the working directory for standard input and for commands without a file.
 */
export function projectDir(files: readonly string[], cwd: string): string {
  const first = files.find((file) => file !== "-");
  if (first === undefined) return cwd;
  const path = resolve(cwd, first);
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ? path : dirname(path);
}

export async function connect(options: ConnectOptions, io: CliIo): Promise<Connection> {
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const dir = resolveStateDir(options, io.env);
  const journal = new FileJournal(join(dir, "journal.json"));
  const rollouts = new RolloutJournal(join(dir, "rollouts.json"));
  const secretMemory = new SecretMemory(join(dir, "secrets.json"));
  const machineDir = machineStateDir(io.env);
  // After a stop request the client sends nothing new (the request in flight completes).
  const signal = options.stopSendsOnSignal && io.signal ? { signal: io.signal } : {};
  const rateWaits = rateWaitNotices({ out: io.stderr, tty: isTty(io.stderr), rateLimit });
  const memo = options.repeatedReads ? { readMemo: new ReadMemo() } : {};
  const parallelism = options.parallelism ?? DEFAULT_CONNECTIONS;
  const widens = options.parallelism === undefined;
  const connections = options.parallelism ?? MAX_DEFAULT_CONNECTIONS;
  const shared = { journal, rollouts, secretMemory, rateWaits, parallelism, widens, machineStateDir: machineDir, ...memo };
  if (!options.emulator) {
    const { config: fromEnv, keyFrom } = configFromEnv(io.env);
    const { config, spaceFrom } = withFileSpace(fromEnv, options.fileSpaceId, io);
    // The API counts per client IP: every process of this machine paces in one window per API.
    const pacer = new MutationPacer({ ...rateLimit, store: new FileWindowStore(() => pacingFileFor(machineDir, config.baseUrl)) });
    const client = createClient({ ...config, env: io.env, connections, pacer, rateWaits, ...signal, ...memo });
    try {
      const spaceId = await client.spaceId();
      const lockScope = new URL(config.baseUrl).origin;
      const close = async () => {
        rateWaits.close();
        // Idle keep-alive connections end with the process (undici unrefs them): closing 256 one by one is ~20 ms of a plan.
        if (!io.endsWithProcess) await client.close();
      };
      return {
        ...shared,
        client,
        spaceId,
        pacer,
        lockScope,
        deletions: new DeletionLog(machineDir, lockScope, spaceId),
        close,
        keyFrom,
        spaceFrom,
      };
    } catch (e) {
      await client.close();
      throw sayWhereTheKeyIsFrom(sayWhereTheSpaceIsFrom(e, config.spaceId ?? "", spaceFrom), keyFrom);
    }
  }
  if (options.fileSpaceId !== undefined && options.fileSpaceId !== EMULATOR_DEFAULTS.spaceId) {
    writeLine(
      io.stderr,
      `warning: the embedded emulator plays one space, ${EMULATOR_DEFAULTS.spaceId}; the file's space ${options.fileSpaceId} is not used (nothing outside this machine is touched)`,
    );
  }
  const statePath = join(dir, "emulator-state.json");
  // Said when it is not where the user stands: a run from another folder sees which emulator it uses.
  if (dirname(dir) !== resolve(options.cwd))
    writeLine(
      io.stderr,
      `emulator: state in ${relative(options.cwd, statePath)}${dir === stateDir(options.dir ?? options.cwd) ? " (beside the file)" : ""}`,
    );
  // Loaded only here: a run against the real API never pays for the emulator's modules.
  const { startEmulator } = await import("../../emulator/index.js");
  const emulator = await startEmulator({ statePath, ...EMULATOR_DEFAULTS, ...(options.rateLimit ? { rateLimit } : {}) });
  try {
    // The embedded emulator lives in this process only: its own window, one lock per project directory.
    const pacer = new MutationPacer(rateLimit);
    // No proxy settings: the emulator is in this process, which a proxy elsewhere cannot reach.
    const client = createClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      spaceId: emulator.spaceId,
      env: {},
      connections,
      pacer,
      rateWaits,
      ...signal,
      ...memo,
    });
    const close = async () => {
      rateWaits.close();
      await client.close();
      await emulator.close();
    };
    const lockScope = `emulator:${dir}`;
    return {
      ...shared,
      client,
      spaceId: emulator.spaceId,
      pacer,
      lockScope,
      deletions: new DeletionLog(machineDir, lockScope, emulator.spaceId),
      emulator,
      close,
      spaceFrom: "key",
    };
  } catch (e) {
    await emulator.close();
    throw e;
  }
}

/**
 * The file's `space:` wins: a file written for one space never acts on the space of whatever key runs it. When CUBE_SPACE_ID (or a
 * krova context) names another, the run says which one it uses.
 */
function withFileSpace(config: ClientConfig, fileSpaceId: string | undefined, io: CliIo): { config: ClientConfig; spaceFrom: SpaceFrom } {
  if (fileSpaceId === undefined) return { config, spaceFrom: config.spaceId === undefined ? "key" : "environment" };
  if (config.spaceId !== undefined && config.spaceId !== fileSpaceId) {
    writeLine(
      io.stderr,
      escapeText(
        `warning: the file says space: ${fileSpaceId}, the environment says ${config.spaceId} (CUBE_SPACE_ID, KROVA_SPACE_ID or the krova context): using the file's, ${fileSpaceId}`,
      ),
    );
  }
  return { config: { ...config, spaceId: fileSpaceId }, spaceFrom: "file" };
}

/** A space the key may not use (403) says where its id came from. */
export function sayWhereTheSpaceIsFrom(error: unknown, spaceId: string, spaceFrom: SpaceFrom): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (spaceFrom === "file" && code === "forbidden" && error instanceof Error)
    error.message += `; the space is the file's (space: ${spaceId}): use a key of that space, or fix space: in the file`;
  return error;
}

function configFromEnv(env: CliIo["env"]): { config: ClientConfig; keyFrom: string } {
  try {
    return { config: clientConfigFromEnv(env), keyFrom: `the variable ${env.CUBE_API_KEY?.trim() ? "CUBE_API_KEY" : "KROVA_API_KEY"}` };
  } catch (e) {
    if ((e as { code?: unknown }).code !== "config") throw e;
    const fromFile = credentialsFrom(
      {
        baseUrl: env.CUBE_API_URL?.trim() || env.KROVA_BASE_URL?.trim() || undefined,
        spaceId: env.CUBE_SPACE_ID?.trim() || env.KROVA_SPACE_ID?.trim() || undefined,
      },
      env,
    );
    if (fromFile) return fromFile;
    throw new CliError(
      "no_api_key",
      `${(e as Error).message}, run \`cubeform login\` (saves a key where the krova CLI keeps it), or pass --emulator to use the local emulator`,
    );
  }
}
