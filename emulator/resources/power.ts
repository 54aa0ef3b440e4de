/** Power operations. All stay allowed while termination protection is on (spec §3 rule 2). */
import { DELAYS } from "../core/clock.js";
import type { RouteContext } from "../core/context.js";
import { conflict, json, SUCCESS, type ApiResponse } from "../core/http.js";
import { SUCCESS_SCHEMA } from "../core/openapi-doc.js";
import type { Resource } from "../core/resource.js";
import type { CubeRecord } from "../core/state.js";
import { CUBE_PATH, requireCube } from "./cube-lookup.js";
import { enterState, scheduleState } from "./cubes.js";

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

export const powerResource: Resource = {
  name: "power",
  routes: [
    { method: "POST", path: `${CUBE_PATH}/power-off`, handler: powerOff, doc: { summary: "Power off a running Cube", tag: "Cubes", ok: [200, SUCCESS_SCHEMA], errors: [404, 409] } },
    { method: "POST", path: `${CUBE_PATH}/wake`, handler: wake, doc: { summary: "Start a stopped Cube", tag: "Cubes", ok: [200, SUCCESS_SCHEMA], errors: [404, 409] } },
    { method: "POST", path: `${CUBE_PATH}/restart`, handler: restart, doc: { summary: "Cold-restart a running Cube", tag: "Cubes", ok: [200, SUCCESS_SCHEMA], errors: [404, 409] } },
  ],
};
