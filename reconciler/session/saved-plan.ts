/**
 * The plan file of `plan --out` / `apply plan.json`: the engine's Plan plus the normalized desired state. Secrets and every `${env:…}` value are
 * references by name: apply resolves them again, and refuses the plan as stale when a salted digest says a value changed (desired/env.ts).
 */
import { nodeCrypto } from "../../system/builtins.js";
import "../../schema/zod-english.js";
import * as z from "zod/mini";
import { PLAN_FORMAT, type DesiredState, type Plan } from "../../engine/types.js";
import { changedEnv, sealEnv, withReferences, withValues, type Env, type SealedEnv } from "../../desired/index.js";
import { FileReadError, readRegularTextAsync, writeFileAtomic, type ReadLimit } from "../../system/files.js";
import { CliError } from "../errors.js";
import type { PlanSources } from "./saved-plan-sources.js";
import { batches, jsonChunks } from "../render/json.js";

export interface SavedPlan extends Plan {
  /** The file the plan was made from, for messages. */
  file: string;
  /** What -f named, to load again at apply: a plan whose files now declare something else is refused. */
  sources?: PlanSources;
  desired: DesiredState;
  /** The variables whose values the plan holds as references, with a salted digest of each value. */
  env?: SealedEnv;
  /** sha256 of the rest of the file's content: a plan edited by hand (or damaged) is refused, since apply carries out exactly its steps. */
  contentDigest?: string;
}

/** Enough structure to refuse a file that is not a cubeform plan; the rest is the engine's. */
const SavedPlanShape = z.looseObject({
  formatVersion: z.number(),
  spaceId: z.string(),
  priorStateDigest: z.string(),
  steps: z.array(z.looseObject({ op: z.string(), address: z.string() })),
  changes: z.array(z.looseObject({ address: z.string(), action: z.string() })),
  summary: z.looseObject({}),
  options: z.looseObject({}),
  file: z.string(),
  sources: z.optional(z.object({ files: z.array(z.string()), cwd: z.string() })),
  desired: z.looseObject({ cubes: z.array(z.unknown()) }),
  env: z.optional(z.object({ salt: z.string(), digests: z.record(z.string(), z.string()) })),
  contentDigest: z.optional(z.string()),
});

/** The digest of a plan's content (everything but the digest), over its canonical JSON text. */
export function contentDigestOf(plan: object): string {
  const { contentDigest: _ignored, ...content } = plan as { contentDigest?: unknown };
  const hash = nodeCrypto().createHash("sha256");
  for (const chunk of jsonChunks(content, 3)) hash.update(chunk, "utf8");
  return hash.digest("hex");
}

/** What to suggest for making a plan: never the user's YAML file (that would overwrite it). */
const planPathToSuggest = (shown: string): string => (/\.json$/i.test(shown) ? shown : "plan.json");

export async function writeSavedPlan(
  path: string,
  plan: Plan,
  desired: DesiredState,
  file: string,
  sources: PlanSources,
  resolved: { names: string[]; env: Env },
): Promise<void> {
  const env = sealEnv(resolved.names, resolved.env);
  const content: SavedPlan = { ...withReferences({ ...plan, file, sources, desired }, env, resolved.env), env };
  const saved: SavedPlan = { ...content, contentDigest: contentDigestOf(content) };
  // Written in pieces (changes, cubes), never as one string: 21 MB for 10,000 cubes.
  await writeFileAtomic(path, batches(jsonChunks(saved, 3)));
}

/**
 * A saved plan is read as one JSON text, and V8 holds at most ~512 MB in one string: 500 MB is
 * ~240,000 cubes at the ~2.1 KB each of a 10,000-cube plan (21 MB).
 */
const SAVED_PLAN: ReadLimit = { maxBytes: 500 * 1024 * 1024, what: "a saved plan" };

/** `path` as the user wrote it, for messages. */
export async function readSavedPlan(absPath: string, path: string, env: Env): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readRegularTextAsync(absPath, SAVED_PLAN);
  } catch (error) {
    throw new CliError("plan_unreadable", `cannot read the plan file ${path}${error instanceof FileReadError ? `: ${error.reason}` : ""}`);
  }
  const suggest = planPathToSuggest(path);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (/^\s*(apiVersion|cubes)\s*:/m.test(text)) {
      throw new CliError(
        "plan_invalid",
        `${path} is a desired-state file, not a saved plan: apply it with \`cubeform apply -f ${path}\`, or save a plan with \`cubeform plan -f ${path} --out plan.json\` and apply that`,
      );
    }
    throw new CliError("plan_invalid", `${path} is not JSON, so not a saved plan; make one with: cubeform plan --out ${suggest}`);
  }
  const checked = SavedPlanShape.safeParse(json);
  if (!checked.success) throw new CliError("plan_invalid", `${path} is not a cubeform plan; make one with: cubeform plan --out ${suggest}`);
  const { contentDigest, formatVersion } = checked.data;
  if (formatVersion !== PLAN_FORMAT) {
    throw new CliError(
      "stale_plan",
      `refusing to apply ${path}: it was saved by another release of cubeform (plan format ${formatVersion}; this release applies format ${PLAN_FORMAT}); make a new plan: cubeform plan --out ${suggest}`,
    );
  }
  if (contentDigest === undefined || contentDigest !== contentDigestOf(json as object)) {
    throw new CliError(
      "plan_modified",
      `refusing to apply ${path}: its content does not match its digest (${contentDigest === undefined ? "it has none" : "it was edited or damaged after it was saved"}); apply carries out exactly the saved steps, so make a new plan: cubeform plan --out ${suggest}`,
    );
  }
  const sealed = checked.data.env ?? { salt: "", digests: {} };
  const changed = changedEnv(sealed, env);
  if (changed.length > 0) {
    const refs = changed.map((name) => `\${env:${name}}`).join(", ");
    throw new CliError(
      "stale_plan",
      `refusing to apply ${path}: the file's ${refs} ${changed.length === 1 ? "has" : "have"} another value (or none) than when the plan was made; make a new plan: cubeform plan --out ${suggest}`,
    );
  }
  return withValues(json as SavedPlan, sealed, env);
}
