/** Finding the cube a request names: every route under a cube starts here. */
import { pathRow, type RouteContext } from "../core/context.js";
import { conflict } from "../core/http.js";
import type { CubeRecord } from "../core/state.js";

export const CUBE_PATH = "/spaces/{spaceId}/cubes/{cubeId}";

export function requireCube(ctx: RouteContext): CubeRecord {
  return pathRow(ctx, ctx.core.data.cubes, "cubeId", "Cube");
}

/** The cube, for an operation that a cube being deleted refuses (409). */
export function requireLiveCube(ctx: RouteContext): CubeRecord {
  const cube = requireCube(ctx);
  if (cube.deleting) throw conflict("This Cube is being deleted");
  return cube;
}
