/** Finding the cube a request names: every route under a cube starts here. */
import type { RouteContext } from "../core/context.js";
import { conflict, notFound } from "../core/http.js";
import type { CubeRecord } from "../core/state.js";

export const CUBE_PATH = "/spaces/{spaceId}/cubes/{cubeId}";

export function requireCube(ctx: RouteContext): CubeRecord {
  const cube = ctx.core.index.cubes.get(ctx.params.cubeId ?? "");
  // Another space's cube is reported exactly like a missing one: never visible, never touchable.
  if (!cube || cube.spaceId !== ctx.auth.spaceId) throw notFound("Cube");
  return cube;
}

/** The cube, for an operation that a cube being deleted refuses (409). */
export function requireLiveCube(ctx: RouteContext): CubeRecord {
  const cube = requireCube(ctx);
  if (cube.deleting) throw conflict("This Cube is being deleted");
  return cube;
}
