/** The executors, one per step op. A create's Idempotency-Key is journalled before the request: a lost answer never duplicates a resource on a rerun. */
import { nodeCrypto } from "../system/builtins.js";
import { errorCode, ignoreNotFound, type ExecContext } from "./context.js";
import { StepError } from "./errors.js";
import { bodyDigest, derivedCreateKey } from "./journal.js";
import type { SecretRef, Step, StepOp, StepOutcome } from "./types.js";
import type { Cube } from "../schema/api.js";
import { waitForCube } from "./wait.js";

export type { ExecContext } from "./context.js";

type StepOf<O extends StepOp> = Extract<Step, { op: O }>;
/** What a step made, if anything (its id, a domain's DNS records). */
type Result = Omit<StepOutcome, "step" | "status">;
type Executor<O extends StepOp> = (step: StepOf<O>, ctx: ExecContext) => Promise<Result | void>;
type JournalEntry = { spaceId: string; address: string; bodyDigest: string };

/** Answers after which the server may or may not have carried out the create: keep the key for a rerun. */
const AMBIGUOUS_CODES = new Set(["network_error", "timeout", "server_error", "invalid_response", "http_error", "stopped"]);

/** Without a journal, one key per step object, reused if the same step runs again. */
const mintedKeys = new WeakMap<Step, string>();

/** `derive`: a key every writer of this create derives alike (cube creates), instead of a random one. */
async function withIdempotencyKey<T>(
  step: Step,
  body: unknown,
  ctx: ExecContext,
  send: (key: string) => Promise<T>,
  derive?: (entry: JournalEntry) => string,
): Promise<T> {
  const entry = { spaceId: ctx.spaceId, address: step.address, bodyDigest: bodyDigest(body) };
  const proposed = derive?.(entry);
  let key: string;
  if (ctx.journal) key = await ctx.journal.keyFor(entry, proposed);
  else if (proposed !== undefined) key = proposed;
  else {
    key = mintedKeys.get(step) ?? `cf-${nodeCrypto().randomUUID()}`;
    mintedKeys.set(step, key);
  }
  try {
    const result = await send(key);
    await ctx.journal?.settle(entry);
    return result;
  } catch (e) {
    if (!AMBIGUOUS_CODES.has(errorCode(e) ?? "")) await ctx.journal?.settle(entry);
    throw e;
  }
}

export function cubeIdOf(step: Extract<Step, { cube: unknown }>, ctx: ExecContext): string {
  const id = step.cube.cubeId ?? ctx.cubeIds.get(step.cube.cubeName);
  if (id === undefined)
    throw new StepError(
      "unknown_cube",
      `cube "${step.cube.cubeName}" has no id: it was to be created earlier in this apply, and that did not happen`,
    );
  return id;
}

function secretValue(ref: SecretRef, step: Step, ctx: ExecContext): string {
  const value = ctx.secrets(ref);
  if (value === undefined || value === "") {
    throw new StepError(
      "missing_secret",
      `environment variable ${ref.env} is not set; it holds basicAuthPassword of ${step.address}`,
      true,
    );
  }
  return value;
}

const RUNNING_SIDE_TRANSIENT = new Set(["pending", "booting", "resizing"]);

/** A cube of this name made since the plan (another writer) is refused, unless this step's earlier run left its key pending: it may be that create. */
async function refuseIfNameTaken(step: StepOf<"create-cube">, ctx: ExecContext): Promise<void> {
  const existing = (await ctx.client.listCubes()).find((cube) => cube.name === step.body.name && cube.state !== "deleted");
  if (existing === undefined) return;
  if (
    ctx.journal?.pending &&
    (await ctx.journal.pending({ spaceId: ctx.spaceId, address: step.address, bodyDigest: bodyDigest(step.body) }))
  )
    return;
  const what = `a cube named "${step.body.name}" (${existing.id}) appeared in the space after the plan was made (another run or person created it)`;
  throw new StepError("cube_appeared", `${what}; not creating a second one: run plan again`);
}

/** How many gone cubes a create's replays may answer with before it gives up (each is one earlier create of the name within 24 h). */
const MAX_GONE_REPLAYS = 8;

/**
 * A cube create with a key derived from the create itself (derivedCreateKey): a second writer on another machine that decided the
 * same create at once gets the first one's cube back instead of a duplicate. A replay that answers with a cube which is gone (deleted
 * since, or renamed) was an earlier create of this name: the next key names that cube, so a wanted re-create is made anew.
 */
async function createCube(step: StepOf<"create-cube">, ctx: ExecContext): Promise<Cube> {
  const gone: string[] = [];
  for (;;) {
    let replayed = false;
    const cube = await withIdempotencyKey(
      step,
      step.body,
      ctx,
      (idempotencyKey) => ctx.client.createCube(step.body, { idempotencyKey, onReplayed: () => (replayed = true) }),
      (entry) => derivedCreateKey(entry, gone),
    );
    if (!replayed || (await isLiveNamesake(cube.id, step.body.name, ctx))) return cube;
    if (gone.length >= MAX_GONE_REPLAYS)
      throw new StepError(
        "create_replayed",
        `creating cube "${step.body.name}" kept answering with cubes that are gone (${gone.join(", ")}): try again later`,
      );
    gone.push(cube.id);
    ctx.logger?.({
      type: "note",
      address: step.address,
      op: step.op,
      message: `the create's key was answered with ${cube.id}, which is gone: creating it again with a new key`,
    });
  }
}

/** The cube a replay answered with is still there under the name created. */
async function isLiveNamesake(cubeId: string, name: string, ctx: ExecContext): Promise<boolean> {
  const live = await ignoreNotFound(ctx.client.getCube(cubeId));
  return live !== undefined && live.name === name && live.state !== "deleted";
}

/** "cube/web/domain/app.example.com" → "app.example.com". */
function hostnameOf(domainAddress: string): string {
  return domainAddress.slice(domainAddress.lastIndexOf("/domain/") + "/domain/".length);
}

const untilNotStopping = (cubeId: string, cubeName: string, ctx: ExecContext): Promise<Cube | undefined> =>
  waitForCube(ctx, { cubeId, cubeName, target: "stopped", reached: (c) => c === undefined || c.state !== "stopping" });

const executors: { [O in StepOp]: Executor<O> } = {
  "create-cube": async (step, ctx) => {
    if (ctx.recheckNameBeforeCreate) await refuseIfNameTaken(step, ctx);
    const cube = await createCube(step, ctx);
    ctx.cubeIds.set(step.cube.cubeName, cube.id);
    return { createdId: cube.id };
  },
  "delete-cube": async (step, ctx) => {
    await ignoreNotFound(ctx.client.deleteCube(step.cube.cubeId));
    await ctx.onDeleteAccepted?.(step.cube.cubeId, step.cube.cubeName);
  },
  "wait-deleted": async (step, ctx) => {
    await waitForCube(ctx, {
      cubeId: step.cube.cubeId,
      cubeName: step.cube.cubeName,
      target: "deleted",
      reached: (cube) => cube === undefined || cube.state === "deleted",
    });
  },
  "set-protection": async (step, ctx) => {
    await ctx.client.setTerminationProtection(cubeIdOf(step, ctx), step.value);
  },
  "power-off": async (step, ctx) => {
    const cubeId = cubeIdOf(step, ctx);
    // A cube just created (or booting) must be running before it can be powered off.
    const cube = await waitForCube(ctx, {
      cubeId,
      cubeName: step.cube.cubeName,
      target: "running or stopped",
      failOnError: true,
      reached: (c) => c !== undefined && !RUNNING_SIDE_TRANSIENT.has(c.state),
    });
    if (cube?.state !== "running") return;
    await ctx.client.powerOff(cubeId);
    // Like a create waits for running: "matches the file" means stopped, not still stopping.
    await untilNotStopping(cubeId, step.cube.cubeName, ctx);
  },
  wake: async (step, ctx) => {
    const cubeId = cubeIdOf(step, ctx);
    // A cube still stopping cannot be woken yet.
    const cube = await untilNotStopping(cubeId, step.cube.cubeName, ctx);
    if (cube?.state === "stopped") await ctx.client.wake(cubeId);
  },
  "wait-running": async (step, ctx) => {
    await waitForCube(ctx, {
      cubeId: cubeIdOf(step, ctx),
      cubeName: step.cube.cubeName,
      target: "running",
      failOnError: true,
      reached: (cube) => cube?.state === "running",
    });
  },
  "set-ssh-port": async (step, ctx) => {
    const cubeId = cubeIdOf(step, ctx);
    // The SSH mapping is made when the cube boots.
    await waitForCube(ctx, {
      cubeId,
      cubeName: step.cube.cubeName,
      target: "booted",
      failOnError: true,
      reached: (c) => c !== undefined && c.state !== "pending",
    });
    await ctx.client.setSshPort(cubeId, step.cubePort);
  },
  "attach-domain": async (step, ctx) => {
    const cubeId = cubeIdOf(step, ctx);
    const body = step.basicAuthPassword ? { ...step.body, basicAuthPassword: secretValue(step.basicAuthPassword, step, ctx) } : step.body;
    // The digest covers the reference, never the password.
    const response = await withIdempotencyKey(
      step,
      { ...step.body, basicAuthPassword: step.basicAuthPassword ?? null },
      ctx,
      (idempotencyKey) => ctx.client.attachDomain(cubeId, body, { idempotencyKey }),
    );
    if (step.basicAuthPassword)
      await ctx.onSecretApplied?.(
        { cubeName: step.cube.cubeName, hostname: step.body.hostname },
        step.basicAuthPassword.env,
        secretValue(step.basicAuthPassword, step, ctx),
      );
    return { createdId: response.domain.id, records: response.records };
  },
  "patch-domain": async (step, ctx) => {
    const body = step.basicAuthPassword ? { ...step.body, basicAuthPassword: secretValue(step.basicAuthPassword, step, ctx) } : step.body;
    await ctx.client.patchDomain(cubeIdOf(step, ctx), step.domainId, body);
    if (step.basicAuthPassword)
      await ctx.onSecretApplied?.(
        { cubeName: step.cube.cubeName, hostname: hostnameOf(step.address) },
        step.basicAuthPassword.env,
        secretValue(step.basicAuthPassword, step, ctx),
      );
  },
  "detach-domain": async (step, ctx) => {
    await ignoreNotFound(ctx.client.detachDomain(cubeIdOf(step, ctx), step.domainId));
  },
  "create-port": async (step, ctx) => {
    const cubeId = cubeIdOf(step, ctx);
    const mapping = await withIdempotencyKey(step, step.body, ctx, (idempotencyKey) =>
      ctx.client.createTcpMapping(cubeId, step.body, { idempotencyKey }),
    );
    return { createdId: mapping.id };
  },
  "delete-port": async (step, ctx) => {
    await ignoreNotFound(ctx.client.deleteTcpMapping(cubeIdOf(step, ctx), step.mappingId));
  },
  "create-webhook": async (step, ctx) => {
    const write = ctx.writeWebhookSecret;
    if (!write)
      throw new StepError(
        "no_secret_store",
        `${step.address}: nowhere to keep the signing secret the API returns once; not creating the endpoint`,
      );
    const created = await ctx.client.createWebhook(step.body);
    try {
      await write(step.secretPath, created.secret);
    } catch (e) {
      // A secret nobody can read makes the endpoint useless: take it back, leave nothing half-made.
      await ignoreNotFound(ctx.client.deleteWebhook(created.id));
      throw new StepError(
        "secret_not_written",
        `cannot write the signing secret to ${step.secretFile} (${(e as Error).message}); the endpoint was deleted again`,
      );
    }
    return { createdId: created.id };
  },
  "delete-webhook": async (step, ctx) => {
    await ignoreNotFound(ctx.client.deleteWebhook(step.webhookId));
  },
  // A batch runs its members' steps and reports each: runSteps (apply.ts) carries it out through rollout.ts.
  "rollout-batch": async (step) => {
    throw new StepError("rollout_batch_alone", `${step.address}: a rollout batch is carried out by runSteps, not on its own`);
  },
};

/** Carries out one step; never throws: a failure is an outcome with the error's code. */
export async function executeStep(step: Step, ctx: ExecContext): Promise<StepOutcome> {
  ctx.logger?.({ type: "step-start", address: step.address, op: step.op });
  try {
    const result = await (executors[step.op] as Executor<StepOp>)(step, ctx);
    ctx.logger?.({ type: "step-done", address: step.address, op: step.op });
    return { step, status: "done", ...result };
  } catch (e) {
    // A wait cut short by the stop request rejects with the signal's reason, not an error.
    const stopped = ctx.signal?.aborted === true && !(e instanceof Error);
    const terminal = !stopped && (e as { terminal?: unknown } | undefined)?.terminal === true;
    const error = stopped
      ? { code: "stopped", message: "not finished: the run was stopped" }
      : { code: errorCode(e) ?? "error", message: e instanceof Error ? e.message : String(e), ...(terminal ? { terminal } : {}) };
    ctx.logger?.({ type: "step-failed", address: step.address, op: step.op, message: error.message });
    return { step, status: "failed", error };
  }
}
