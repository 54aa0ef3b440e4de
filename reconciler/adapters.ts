/**
 * The engine functions the CLI calls that have not landed yet, typed from their contracts.
 * TEMPORARY: once they land this file goes and callers import them from engine/index.ts.
 * Until then, calling a missing function throws a clear error.
 */
import type { CubeApi } from "../client/api.js";
import type { ApplyResult, DesiredState, EngineLogger, IdempotencyJournal, ObservedState, Plan } from "../engine/types.js";

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
  observe(client: CubeApi, options: { concurrency: number; cubeNames?: string[] }): Promise<ObservedState>;
  apply(plan: Plan, options: ApplyOptions): Promise<ApplyResult>;
}

async function pick<T, K extends keyof T & string>(specifier: string, name: K): Promise<T[K]> {
  const mod = (await import(specifier).catch(() => ({}))) as Record<string, unknown>;
  const fn = mod[name];
  if (typeof fn !== "function") throw new Error(`${specifier} does not export ${name} yet`);
  return fn as T[K];
}

// Non-literal specifiers keep tsc from resolving modules that do not exist yet.
const ENGINE = "../engine/index.js";

export const engineFn = <K extends keyof EngineFunctions & string>(name: K) => pick<EngineFunctions, K>(ENGINE, name);

