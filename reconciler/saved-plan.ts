/**
 * The plan file of `plan --out` / `apply plan.json`: the Plan object as the engine made it,
 * plus the normalized desired state apply needs. Secrets are references by name only.
 */
import { open, readFile, rename } from "node:fs/promises";
import { z } from "zod";
import type { DesiredState, Plan } from "../engine/types.js";
import { CliError } from "./errors.js";
import { batches, prettyJsonChunks } from "./render/json.js";

export interface SavedPlan extends Plan {
  /** The file the plan was made from, for messages. */
  file: string;
  desired: DesiredState;
}

/** Enough structure to refuse a file that is not a cubeform plan; the rest is the engine's. */
const SavedPlanShape = z.looseObject({
  formatVersion: z.literal(1),
  spaceId: z.string(),
  priorStateDigest: z.string(),
  steps: z.array(z.looseObject({ op: z.string(), address: z.string() })),
  changes: z.array(z.looseObject({ address: z.string(), action: z.string() })),
  summary: z.looseObject({}),
  options: z.looseObject({}),
  file: z.string(),
  desired: z.looseObject({ cubes: z.array(z.unknown()) }),
});

export async function writeSavedPlan(path: string, plan: Plan, desired: DesiredState, file: string): Promise<void> {
  const saved: SavedPlan = { ...plan, file, desired };
  const temp = `${path}.${process.pid}.tmp`;
  // Written in pieces (changes, cubes), never as one string: 75 MB for 10,000 cubes.
  const handle = await open(temp, "w");
  try {
    for (const batch of batches(prettyJsonChunks(saved, 3))) await handle.write(batch, null, "utf8");
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

/** `shown` is the path as the user wrote it, for messages. */
export async function readSavedPlan(absPath: string, shown: string): Promise<SavedPlan> {
  const path = shown;
  let text: string;
  try {
    text = await readFile(absPath, "utf8");
  } catch {
    throw new CliError("plan_unreadable", `cannot read the plan file ${path}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError("plan_invalid", `${path} is not JSON; make one with: cubeform plan --out ${path}`);
  }
  const checked = SavedPlanShape.safeParse(json);
  if (!checked.success) throw new CliError("plan_invalid", `${path} is not a cubeform plan (formatVersion 1); make one with: cubeform plan --out ${path}`);
  return json as SavedPlan;
}
