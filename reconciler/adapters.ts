/**
 * The engine and emulator-CLI functions the CLI calls, typed from their contracts.
 * TEMPORARY: the engine and emulator CLI are being written in parallel; once they land this file becomes
 * plain re-exports. Until then, calling a missing function throws a clear error.
 */
import type { CubeApi } from "../client/api.js";
import type { ApplyResult, DesiredState, EngineLogger, IdempotencyJournal, ObservedState, Plan, PlanOptions } from "../engine/types.js";
import type { DesiredStateDocument } from "../schema/desired.js";
import type { CliIo } from "./io.js";

export interface NormalizeFiles {
  /** Reads a path as written in the file (relative to the file's directory). */
  readTextFile(path: string): string;
}

export interface ApplyOptions {
  client: CubeApi;
  spaceId: string;
  journal: IdempotencyJournal;
  secrets: Record<string, string | undefined>;
  cubeIds: Map<string, string>;
  logger: EngineLogger;
  waitTimeoutMs: number;
  pollIntervalMs: number;
  desired: DesiredState;
  shouldStop: () => boolean;
}

export interface EngineFunctions {
  normalize(doc: DesiredStateDocument, files: NormalizeFiles): DesiredState | Promise<DesiredState>;
  observe(client: CubeApi, options: { concurrency: number; cubeNames?: string[] }): Promise<ObservedState>;
  diff(desired: DesiredState, observed: ObservedState, options: Partial<PlanOptions>): Plan;
  checkPlanIsCurrent(plan: Plan, observed: ObservedState): void;
  apply(plan: Plan, options: ApplyOptions): Promise<ApplyResult>;
}

export interface EmulatorCommandOptions {
  port?: number;
  apiKey?: string;
  spaceId?: string;
  statePath?: string;
  rateLimit?: { limit: number; windowMs: number };
}

export interface EmulatorCliFunctions {
  runEmulatorCommand(options: EmulatorCommandOptions, io: CliIo): Promise<{ close(): Promise<void> } | void>;
}

async function pick<T, K extends keyof T & string>(specifier: string, name: K): Promise<T[K]> {
  const mod = (await import(specifier).catch(() => ({}))) as Record<string, unknown>;
  const fn = mod[name];
  if (typeof fn !== "function") throw new Error(`${specifier} does not export ${name} yet`);
  return fn as T[K];
}

// Non-literal specifiers keep tsc from resolving modules that do not exist yet.
const ENGINE = "../engine/index.js";
const EMULATOR_CLI = "../emulator/cli.js";

export const engineFn = <K extends keyof EngineFunctions & string>(name: K) => pick<EngineFunctions, K>(ENGINE, name);
export const emulatorCliFn = <K extends keyof EmulatorCliFunctions & string>(name: K) => pick<EmulatorCliFunctions, K>(EMULATOR_CLI, name);
