/**
 * Pulumi ids of the cube's sub-resources are "<cubeId>/<childId>": the API addresses domains and TCP mappings under their
 * cube, so the id alone is enough for read, delete and import. A bare child id (import) is looked up across the space.
 */
import { ignoreNotFound } from "../engine/index.js";
import { apiClient } from "./settings.js";

export const childId = (cubeId: string, id: string): string => `${cubeId}/${id}`;

export function parseChildId(id: string): { cubeId?: string; childId: string } {
  const slash = id.lastIndexOf("/");
  if (slash <= 0) return { childId: id };
  return { cubeId: id.slice(0, slash), childId: id.slice(slash + 1) };
}

/** An adopted id under the declared cube when it names none ("dom_1" → "<cubeId>/dom_1"). */
export function underCube(id: string, cubeId: string): string {
  return parseChildId(id).cubeId === undefined ? childId(cubeId, id) : id;
}

/** Finds a child by its Pulumi id; undefined when it (or its cube) no longer exists. */
export async function findChild<T extends { id: string }>(
  id: string,
  list: (cubeId: string) => Promise<T[]>,
): Promise<{ cubeId: string; childId: string; item: T } | undefined> {
  const ref = parseChildId(id);
  const cubeIds = ref.cubeId !== undefined ? [ref.cubeId] : (await apiClient().listCubes()).map((cube) => cube.id);
  for (const cubeId of cubeIds) {
    const item = (await ignoreNotFound(list(cubeId)))?.find((child) => child.id === ref.childId);
    if (item) return { cubeId, childId: ref.childId, item };
  }
  return undefined;
}
