/**
 * Apply loads a saved plan's files again (as -f named them, from the folder they were named from) and refuses the plan when they now declare
 * something else: it would carry out the old file and then say the space matches the file (Terraform refuses such a plan too).
 */
import { isDeepStrictEqual } from "node:util";
import type { DeclaredCube, DesiredCubeSpec, DesiredState } from "../../engine/types.js";
import { STDIN, type LoadedFiles, type Env } from "../../desired/index.js";
import { loadFleetForCli } from "../hints.js";
import { CliError } from "../errors.js";

export interface PlanSources {
  /** What -f named, as written. */
  files: string[];
  /** The absolute folder they are relative to. */
  cwd: string;
}

/** Whether apply can read the sources again (standard input cannot be). */
export function canRecheck(sources: PlanSources | undefined): sources is PlanSources {
  return sources !== undefined && !sources.files.includes(STDIN);
}

/** Throws stale_plan, naming the file and cube, when the sources no longer declare `desired`. */
export async function refuseChangedSources(sources: PlanSources, desired: DesiredState, planFile: string, env: Env): Promise<void> {
  const now = await reload(sources, planFile, env);
  const difference = firstDifference(desired, JSON.parse(JSON.stringify(now.desired)) as DesiredState, now);
  if (difference === undefined) return;
  throw new CliError(
    "stale_plan",
    `refusing to apply ${planFile}: ${difference} since the plan was made; make a new plan: cubeform plan --out ${planFile}`,
  );
}

async function reload(sources: PlanSources, planFile: string, env: Env): Promise<LoadedFiles> {
  try {
    return await loadFleetForCli({ files: sources.files, cwd: sources.cwd, env });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new CliError(
      "stale_plan",
      `refusing to apply ${planFile}: the files it was made from (${sources.files.join(", ")}) no longer load: ${reason}`,
    );
  }
}

type Cubes = Map<string, DesiredCubeSpec | DeclaredCube>;

const cubesOf = (state: DesiredState): Cubes => new Map([...(state.untargeted ?? []), ...state.cubes].map((cube) => [cube.name, cube]));

/** What differs, as "FILE changed (cube "x" …)", or undefined when nothing does. */
function firstDifference(planned: DesiredState, now: DesiredState, loaded: LoadedFiles): string | undefined {
  const [before, after] = [cubesOf(planned), cubesOf(now)];
  const fileOf = (name: string): string => loaded.cubePositions[name]?.file ?? loaded.file;
  for (const [name, cube] of after) {
    if (!before.has(name)) return `${fileOf(name)} changed (it now declares cube "${name}")`;
    if (!isDeepStrictEqual(before.get(name), cube)) return `${fileOf(name)} changed (cube "${name}" is declared differently)`;
  }
  for (const name of before.keys()) if (!after.has(name)) return `${loaded.file} changed (cube "${name}" is no longer declared)`;
  const { cubes: _a, untargeted: _b, ignoreWarnings: _e, ...plannedRest } = planned;
  const { cubes: _c, untargeted: _d, ignoreWarnings: _f, ...nowRest } = now;
  if (!isDeepStrictEqual(plannedRest, nowRest)) return `${loaded.file} changed (its prune, spaceId or webhooks)`;
  return undefined;
}
