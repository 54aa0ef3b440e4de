/** Power operations. All stay allowed while termination protection is on (spec §3 rule 2). */
import { DELAYS } from "./clock.js";
import type { RouteContext } from "./context.js";
import { enterState, requireCube, scheduleState } from "./cubes.js";
import { conflict, json, SUCCESS, type ApiResponse } from "./http.js";
import type { CubeRecord } from "./state.js";

function requireLive(cube: CubeRecord): void {
  if (cube.deleting) throw conflict("This Cube is being deleted");
}

export function powerOff(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  requireLive(cube);
  if (cube.state !== "running") throw conflict(`Cannot power off a Cube that is ${cube.state}; it must be running`);
  cube.epoch++;
  enterState(ctx.core, cube, "stopping", ctx.now);
  scheduleState(ctx.core, cube, "stopped", ctx.now + DELAYS.stopping);
  return json(200, SUCCESS);
}

export function wake(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  requireLive(cube);
  if (cube.state !== "stopped") throw conflict(`Cannot wake a Cube that is ${cube.state}; it must be stopped`);
  cube.epoch++;
  enterState(ctx.core, cube, "booting", ctx.now);
  scheduleState(ctx.core, cube, "running", ctx.now + DELAYS.booting);
  return json(200, SUCCESS);
}

/** A cold restart: running → booting → running; a second restart meanwhile is a 409. */
export function restart(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  requireLive(cube);
  if (cube.restarting) throw conflict("A restart of this Cube is already in progress");
  if (cube.state !== "running") throw conflict(`Cannot restart a Cube that is ${cube.state}; it must be running`);
  cube.epoch++;
  cube.restarting = true;
  enterState(ctx.core, cube, "booting", ctx.now);
  scheduleState(ctx.core, cube, "running", ctx.now + DELAYS.booting);
  return json(200, SUCCESS);
}
