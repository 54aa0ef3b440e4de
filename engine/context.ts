/** What the executors need: the client, where create keys live, secrets, and clocks for tests. */
import type { CubeApi } from "../client/api.js";
import type { EngineLogger, IdempotencyJournal, RolloutBatchStep, RolloutRecord, SecretRef } from "./types.js";
import type { HealthProbe } from "./health.js";

/** Where a batch is: its members being replaced, their health being checked, healthy, failed, or put back. */
export type RolloutPhase = RolloutRecord["phase"];
import { sleep } from "../system/time.js";

export interface ExecContext {
  client: CubeApi;
  spaceId: string;
  /** Create keys are written here before the request; without one, keys live as long as the step object. */
  journal?: IdempotencyJournal;
  /** The value of a secret reference (e.g. from process.env, read by the caller). */
  secrets: (ref: SecretRef) => string | undefined;
  /** Cube name → id: filled by create-cube for the steps that follow it. */
  cubeIds: Map<string, string>;
  logger?: EngineLogger;
  /** How long a wait may take (default 300 000 ms). */
  waitTimeoutMs?: number;
  /** Poll interval of waits (default 1 000 ms). */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  /** Refuse a cube create when a cube of its name appeared since the plan; off for the provider (create-before-delete makes namesakes). */
  recheckNameBeforeCreate?: boolean;
  /** Stores a new endpoint's signing secret (shown once; the CLI: a 0600 file at `secretPath`). Without it, create-webhook fails. */
  writeWebhookSecret?: (secretPath: string, secret: string) => Promise<void>;
  /** A domain's basic-auth password (the value of `env`) was accepted by the API. */
  onSecretApplied?: (slot: { cubeName: string; hostname: string }, env: string, value: string) => Promise<void>;
  /** The API accepted a cube's DELETE (the cube stays listed until the deletion finishes). */
  onDeleteAccepted?: (cubeId: string, cubeName: string) => Promise<void>;
  /** A rollout's health probe (default: health.ts probeMember). */
  probe?: HealthProbe;
  /** A rollout batch reached a phase: the CLI journals it, so a rerun after a crash knows where the rollout was (reconciler/session/rollout-journal.ts). */
  rolloutProgress?: (batch: RolloutBatchStep, phase: RolloutPhase) => Promise<void>;
  /** Injectable clock (ms since the epoch) and sleep, for tests. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const nowOf = (ctx: ExecContext): number => (ctx.now ? ctx.now() : Date.now());

export function sleepFor(ctx: ExecContext, ms: number): Promise<void> {
  if (ctx.sleep) return ctx.sleep(ms, ctx.signal);
  return sleep(ms, ctx.signal).then(() => ctx.signal?.throwIfAborted());
}

export function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export const isNotFound = (e: unknown): boolean => errorCode(e) === "not_found";

/** The answer, or undefined on a 404: what was asked for is gone (a DELETE of it has the effect asked for). */
export function ignoreNotFound<T>(request: Promise<T>): Promise<T | undefined> {
  return request.catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
}
