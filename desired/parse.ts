/**
 * The parse seam: a file's text becomes a value and a way to find where a path of it is written. Two parsers stand behind it:
 * the light one (yaml-split.ts: cube by cube, no positions kept but each cube's start) for a plainly shaped file, and the
 * positioned one (parsed-file.ts: the whole document with a LineCounter) for any other, or for any problem. After either, the
 * same walk resolves `${env:…}` (env.ts), the same schemas check, and normalize.ts makes the DesiredState.
 */
import type { DesiredStateDocument } from "../schema/desired.js";
import { memberName } from "../engine/light.js";
import type { Position } from "./errors.js";
import type { IssuePath } from "./issue-text.js";

export interface ParsedText {
  readonly value: unknown;
  positionOf(path: IssuePath): Position;
}

/** Where the first cube of each name starts. */
export function positionsByName(document: DesiredStateDocument, starts: (Position | undefined)[]): Record<string, Position> {
  const positions: Record<string, Position> = {};
  document.cubes.forEach((cube, i) => {
    const start = starts[i];
    if (start !== undefined && positions[cube.name] === undefined) positions[cube.name] = start;
    // A group's members are where their entry is.
    for (let i = 1; start !== undefined && i <= (cube.replicas ?? 0); i++) positions[memberName(cube.name, i)] ??= start;
  });
  return positions;
}
