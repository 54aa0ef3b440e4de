/** Which live cube each declared cube is: its name in the space, or the one its `id` pins. Several candidates are reported, never guessed. */
import type { DeclaredCube, ObservedCube } from "./types.js";

export type CubeMatch =
  | { kind: "matched"; live: ObservedCube }
  | { kind: "absent" }
  | { kind: "ambiguous"; candidates: ObservedCube[]; reason: string };

export interface CubeMatching {
  /** One entry per declared cube, in the same order (per planned cube: see matchCubes). */
  matches: CubeMatch[];
  /** Live cubes that no declared cube claims. */
  unmanaged: ObservedCube[];
}

/**
 * Linear in declared + live cubes. Only the first `planned` specs get a match (a --target plan: the targeted cubes come first); the others only claim their
 * live cubes, so that those are not unmanaged. Live cubes are indexed by id only when a spec pins one, and by name only for the planned specs' names.
 */
export function matchCubes(specs: readonly DeclaredCube[], live: readonly ObservedCube[], planned = specs.length): CubeMatching {
  const claimed = new Set<string>();
  const pinned = pinnedCubes(specs, live);
  for (const cube of pinned) if (cube) claimed.add(cube.cube.id);
  const byName = liveByName(specs, live, planned);
  const matches: CubeMatch[] = [];
  for (let index = 0; index < planned && index < specs.length; index++) {
    const spec = specs[index] as DeclaredCube;
    const pin = pinned[index];
    if (pin) {
      matches.push({ kind: "matched", live: pin });
      continue;
    }
    const candidates = (byName.get(spec.name) ?? []).filter((cube) => !claimed.has(cube.cube.id));
    for (const cube of candidates) claimed.add(cube.cube.id);
    matches.push(matchByName(spec, candidates));
  }
  // The other specs claim every live cube of their name that is still unclaimed.
  const claimingNames = new Set<string>();
  for (let index = planned; index < specs.length; index++) if (!pinned[index]) claimingNames.add((specs[index] as DeclaredCube).name);
  const unmanaged = live.filter((cube) => !claimed.has(cube.cube.id) && !claimingNames.has(cube.cube.name));
  return { matches, unmanaged };
}

/** The live cube each spec's id pins (sparse: most files pin none). */
function pinnedCubes(specs: readonly DeclaredCube[], live: readonly ObservedCube[]): (ObservedCube | undefined)[] {
  const pinned: (ObservedCube | undefined)[] = [];
  if (!specs.some((spec) => spec.id !== undefined)) return pinned;
  const byId = new Map(live.map((cube) => [cube.cube.id, cube]));
  for (const [index, spec] of specs.entries()) if (spec.id !== undefined) pinned[index] = byId.get(spec.id);
  return pinned;
}

/** The live cubes of each planned spec's name, each list in the order of `live`. */
function liveByName(specs: readonly DeclaredCube[], live: readonly ObservedCube[], planned: number): Map<string, ObservedCube[]> {
  const byName = new Map<string, ObservedCube[]>();
  for (let index = 0; index < planned && index < specs.length; index++) byName.set((specs[index] as DeclaredCube).name, []);
  for (const cube of live) byName.get(cube.cube.name)?.push(cube);
  return byName;
}

function matchByName(spec: DeclaredCube, candidates: ObservedCube[]): CubeMatch {
  if (candidates.length === 0) return { kind: "absent" };
  const ids = candidates.map((cube) => cube.cube.id).join(", ");
  if (spec.id !== undefined) {
    return {
      kind: "ambiguous",
      candidates,
      reason: `cube "${spec.name}" pins id ${spec.id}, which does not exist, but live cubes named "${spec.name}" do (${ids}); set id: to one of them or remove the id and the other cubes`,
    };
  }
  if (candidates.length === 1 && candidates[0]) return { kind: "matched", live: candidates[0] };
  return {
    kind: "ambiguous",
    candidates,
    reason: `${candidates.length} live cubes are named "${spec.name}" (${ids}); pin one with id: in the file, or delete the others`,
  };
}
