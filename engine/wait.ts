/** Polling a cube until it reaches a state, with a deadline. Reads only (never rate limited). */
import type { Cube } from "../schema/api.js";
import { formatDuration } from "../system/time.js";
import { CubeErrorStateError, WaitTimeoutError } from "./errors.js";
import { ignoreNotFound, nowOf, sleepFor, type ExecContext } from "./context.js";

export interface WaitSpec {
  cubeId: string;
  cubeName: string;
  /** Words for messages, e.g. "running", "deleted". */
  target: string;
  /** undefined: the cube is gone (404). */
  reached(cube: Cube | undefined): boolean;
  /** Fail at once when the cube is in state "error" (waiting for it to run). */
  failOnError?: boolean;
}

export async function waitForCube(ctx: ExecContext, spec: WaitSpec): Promise<Cube | undefined> {
  const timeoutMs = ctx.waitTimeoutMs ?? 300_000;
  const pollMs = ctx.pollIntervalMs ?? 1_000;
  const deadline = nowOf(ctx) + timeoutMs;
  for (;;) {
    const cube = await ignoreNotFound(ctx.client.getCube(spec.cubeId));
    if (spec.reached(cube)) return cube;
    if (cube && spec.failOnError && cube.state === "error") {
      throw new CubeErrorStateError(
        `cube "${spec.cubeName}" (${spec.cubeId}) is in state error while waiting for it to be ${spec.target}; look at it in the dashboard, then delete or replace it`,
      );
    }
    const remaining = deadline - nowOf(ctx);
    if (remaining <= 0) {
      const state = cube?.state ?? "gone";
      const waited = `after ${formatDuration(timeoutMs)} of waiting for it to be ${spec.target} (deadline ${new Date(deadline).toISOString()})`;
      throw new WaitTimeoutError(`cube "${spec.cubeName}" (${spec.cubeId}) is still ${state} ${waited}`, spec.cubeId, state);
    }
    ctx.logger?.({ type: "wait", message: `cube "${spec.cubeName}" is ${cube?.state ?? "gone"}, waiting for ${spec.target}` });
    await sleepFor(ctx, Math.min(pollMs, remaining));
  }
}
