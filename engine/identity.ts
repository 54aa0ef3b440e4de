/**
 * Which live cube each declared cube is. A cube is its name in the space; an `id` pins one.
 * Several candidates are an ambiguity, reported and never guessed.
 */
import type { DeclaredCube, ObservedCube } from "./types.js";

export type CubeMatch =
  | { kind: "matched"; live: ObservedCube }
  | { kind: "absent" }
  | { kind: "ambiguous"; candidates: ObservedCube[]; reason: string };

export interface CubeMatching {
  /** One entry per declared cube, in the same order. */
  matches: CubeMatch[];
  /** Live cubes that no declared cube claims. */
  unmanaged: ObservedCube[];
}

/** Linear in declared + live cubes: live cubes are indexed by id and by name once. */
export function matchCubes(specs: readonly DeclaredCube[], live: ObservedCube[]): CubeMatching {
  const claimed = new Set<string>();
  const byId = new Map(live.map((cube) => [cube.cube.id, cube]));
  const byName = groupByName(live);
  const pinned = specs.map((spec) => (spec.id !== undefined ? byId.get(spec.id) : undefined));
  for (const cube of pinned) if (cube) claimed.add(cube.cube.id);
  const matches = specs.map((spec, index): CubeMatch => {
    const pin = pinned[index];
    if (pin) return { kind: "matched", live: pin };
    const candidates = (byName.get(spec.name) ?? []).filter((cube) => !claimed.has(cube.cube.id));
    for (const cube of candidates) claimed.add(cube.cube.id);
    return matchByName(spec, candidates);
  });
  return { matches, unmanaged: live.filter((cube) => !claimed.has(cube.cube.id)) };
}

/** Live cubes by name, each list in the order of `live`. */
function groupByName(live: ObservedCube[]): Map<string, ObservedCube[]> {
  const byName = new Map<string, ObservedCube[]>();
  for (const cube of live) {
    const list = byName.get(cube.cube.name);
    if (list) list.push(cube);
    else byName.set(cube.cube.name, [cube]);
  }
  return byName;
}

function matchByName(spec: DeclaredCube, candidates: ObservedCube[]): CubeMatch {
  if (candidates.length === 0) return { kind: "absent" };
  const ids = candidates.map((cube) => cube.cube.id).join(", ");
  if (spec.id !== undefined) {
    return { kind: "ambiguous", candidates, reason: `cube "${spec.name}" pins id ${spec.id}, which does not exist, but live cubes named "${spec.name}" do (${ids}); set id: to one of them or remove the id and the other cubes` };
  }
  if (candidates.length === 1 && candidates[0]) return { kind: "matched", live: candidates[0] };
  return { kind: "ambiguous", candidates, reason: `${candidates.length} live cubes are named "${spec.name}" (${ids}); pin one with id: in the file, or delete the others` };
}
