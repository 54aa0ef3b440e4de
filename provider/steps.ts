/** Engine steps for one Pulumi resource: the executors do the HTTP; this supplies the shared context and makes a failed step an error. */
import {
  bodyDigest,
  cubeAddress,
  type ExecContext,
  ignoreNotFound,
  memoryJournal,
  runSteps,
  type CubeRef,
  type IdempotencyJournal,
  type ResourcePlan,
  type SecretRef,
  type Step,
  type StepOutcome,
} from "../engine/index.js";
import type { CubeApi } from "../client/index.js";
import { StepFailure } from "./errors.js";
import { parseChildId } from "./ids.js";
import { apiClient, currentSettings } from "./settings.js";

/** One journal per plugin process: a create retried within the process reuses its Idempotency-Key. */
const journal: IdempotencyJournal = memoryJournal();

/** Whether this plugin sent the step's create and never learnt its outcome (a retry reuses its key). */
export async function hasPendingCreate(step: Extract<Step, { op: "create-cube" }>): Promise<boolean> {
  const spaceId = await apiClient().spaceId();
  return (await journal.pending?.({ spaceId, address: step.address, bodyDigest: bodyDigest(step.body) })) === true;
}

export interface RunOptions {
  /** cube name → id, as the executors learn them (a create-cube adds the new id). */
  cubeIds?: Map<string, string>;
  /** Values of the SecretRefs the steps name (e.g. the domain's basicAuthPassword). */
  secrets?: Record<string, string | undefined>;
}

/** The executors' context of this plugin: its client (one pacer), its journal, its waits. */
export async function execContext(client: CubeApi, options: RunOptions = {}): Promise<ExecContext> {
  const settings = currentSettings();
  const secrets = options.secrets ?? {};
  return {
    client,
    spaceId: await client.spaceId(),
    journal,
    secrets: (ref: SecretRef) => secrets[ref.env],
    cubeIds: options.cubeIds ?? new Map<string, string>(),
    waitTimeoutMs: settings.waitTimeoutMs,
    pollIntervalMs: settings.pollIntervalMs,
  };
}

/** Runs the steps and throws the first failure; returns every step's outcome. */
export async function runOrThrow(steps: Step[], options: RunOptions = {}): Promise<StepOutcome[]> {
  const { outcomes } = await runSteps(steps, await execContext(apiClient(), options));
  const failed = outcomes.find((outcome) => outcome.status === "failed");
  if (failed) throw new StepFailure(failed);
  return outcomes;
}

export function createdId(outcomes: StepOutcome[], op: Step["op"]): string | undefined {
  return outcomes.find((outcome) => outcome.step.op === op && outcome.status === "done")?.createdId;
}

/**
 * Deletes a domain or TCP mapping (id "<cubeId>/<childId>", or a bare child id with the cube from the old outputs) through
 * the engine's plan for a live resource no longer declared. A 404 (the resource or its cube gone) is success.
 */
export async function deleteChildResource<L extends { cubeId: string; id: string }>(
  id: string,
  live: L,
  planDelete: (input: { cubeAddress: string; cube: CubeRef; live: L }) => ResourcePlan,
): Promise<void> {
  const ref = parseChildId(id);
  const target = { ...live, cubeId: ref.cubeId ?? live.cubeId, id: ref.childId };
  const planned = planDelete({
    cubeAddress: cubeAddress(target.cubeId),
    cube: { cubeName: target.cubeId, cubeId: target.cubeId },
    live: target,
  });
  await ignoreNotFound(runOrThrow(planned.steps));
}
