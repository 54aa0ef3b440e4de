/** Power operations. All stay allowed while termination protection is on (spec §3 rule 2). */
import type { CubeState } from "../../schema/api.js";
import { DELAYS } from "../core/clock.js";
import type { RouteContext } from "../core/context.js";
import { conflict, json, SUCCESS, type ApiResponse } from "../core/http.js";
import { SUCCESS_SCHEMA } from "../core/openapi-doc.js";
import type { Resource, Route } from "../core/resource.js";
import { CUBE_PATH, requireLiveCube } from "./cube-lookup.js";
import { enterState, scheduleState } from "./cubes.js";

interface Transition {
  verb: string;
  from: CubeState;
  via: CubeState;
  to: CubeState;
  delay: number;
  summary: string;
}

/** One handler per transition: the cube must be `from`; it enters `via` now and settles in `to` after `delay`. */
function transition(path: string, t: Transition, restart = false): Route {
  const handler = (ctx: RouteContext): ApiResponse => {
    const cube = requireLiveCube(ctx);
    // A cold restart: running → booting → running; a second restart meanwhile is a 409.
    if (restart && cube.restarting) throw conflict("A restart of this Cube is already in progress");
    if (cube.state !== t.from) throw conflict(`Cannot ${t.verb} a Cube that is ${cube.state}; it must be ${t.from}`);
    cube.epoch++;
    if (restart) cube.restarting = true;
    enterState(ctx.core, cube, t.via, ctx.now);
    scheduleState(ctx.core, cube, t.to, ctx.now + t.delay);
    return json(200, SUCCESS);
  };
  return {
    method: "POST",
    path: `${CUBE_PATH}/${path}`,
    handler,
    doc: { summary: t.summary, tag: "Cubes", ok: [200, SUCCESS_SCHEMA], errors: [404, 409] },
  };
}

export const powerResource: Resource = {
  routes: [
    transition("power-off", {
      verb: "power off",
      from: "running",
      via: "stopping",
      to: "stopped",
      delay: DELAYS.stopping,
      summary: "Power off a running Cube",
    }),
    transition("wake", {
      verb: "wake",
      from: "stopped",
      via: "booting",
      to: "running",
      delay: DELAYS.booting,
      summary: "Start a stopped Cube",
    }),
    transition(
      "restart",
      { verb: "restart", from: "running", via: "booting", to: "running", delay: DELAYS.booting, summary: "Cold-restart a running Cube" },
      true,
    ),
  ],
};
