/** `cubeform plan`: load → connect → observe → diff → render. Exit 0 in sync, 2 with changes. */
import type { Plan } from "../../engine/types.js";
import { isOverBudget } from "../../engine/cost.js";
import { policyBlocks } from "../../engine/policy.js";
import { outputWidth, writeLine, useColor, type CliIo } from "../io.js";
import type { LoadedFile, LoadedFiles } from "../../desired/index.js";
import { domainKeyOrder } from "../render/file-order.js";
import { renderPlanMarkdown, writePlan, type RenderContext } from "../render/index.js";
import { hasChanges } from "../render/values.js";
import { resolve } from "node:path";
import { writeSavedPlan } from "../session/saved-plan.js";
import { computePlan, loadForSession, withConnection, type PlanFlags, type SessionContext } from "../session/session.js";
import { openForAppendNoFollow } from "../../system/files.js";

export interface PlanContext extends SessionContext, PlanFlags {
  /** Where to save the plan for `apply plan.json`. */
  out?: string;
  /** What exits 2: any change (the default), or only a blocked one (a pull request's check). */
  failOn?: "changes" | "blocked" | "policy";
}

export const EXIT_IN_SYNC = 0;
export const EXIT_CHANGES = 2;
/** --fail-on policy: a mandatory policy violation fails a CI step. */
export const EXIT_POLICY = 1;

export async function runPlan(ctx: PlanContext, io: CliIo): Promise<number> {
  // A saved plan keeps the whole desired state (apply reports the untargeted cubes that differ).
  const loaded = await loadForSession(ctx, io, { targetedLoad: ctx.out === undefined });
  const plan = await withConnection({ ...ctx, fileSpaceId: loaded.desired.spaceId }, io, async (conn) => (await computePlan(conn, loaded.desired, ctx, ctx.rateLimit, io.stderr, loaded, io.env)).plan);
  await writePlan(io.stdout, plan, ctx.format, renderContext(loaded, io));
  if (ctx.format === "github") await appendStepSummary(io, renderPlanMarkdown(plan, renderContext(loaded, io)));
  if (ctx.out !== undefined) {
    await writeSavedPlan(resolve(ctx.cwd, ctx.out), plan, loaded.desired, loaded.file, { files: ctx.files, cwd: resolve(ctx.cwd) }, { names: loaded.envNames, env: io.env });
    if (ctx.format === "text") writeLine(io.stdout, `\nSaved the plan to ${ctx.out}. Apply exactly these steps with: cubeform apply ${ctx.out}`);
  }
  return exitCodeOf(plan, ctx.failOn);
}

export function exitCodeOf(plan: Plan, failOn: "changes" | "blocked" | "policy" = "changes"): number {
  if (failOn === "policy") return policyBlocks(plan).length > 0 ? EXIT_POLICY : EXIT_IN_SYNC;
  if (failOn === "blocked") return plan.changes.some((change) => change.blocked) || isOverBudget(plan.cost) ? EXIT_CHANGES : EXIT_IN_SYNC;
  return hasChanges(plan) ? EXIT_CHANGES : EXIT_IN_SYNC;
}

export function renderContext(loaded: Pick<LoadedFile, "file" | "cubePositions"> & Partial<Pick<LoadedFiles, "desired" | "locateCube">>, io: CliIo): RenderContext {
  const ctx: RenderContext = { file: loaded.file, cubePositions: loaded.cubePositions, color: useColor(io), width: outputWidth(io.stdout) };
  if (loaded.desired !== undefined && loaded.locateCube !== undefined) ctx.domainKeyOrder = domainKeyOrder({ desired: loaded.desired, locateCube: loaded.locateCube });
  return ctx;
}

/** GitHub shows this file's markdown on the run's summary page. */
export async function appendStepSummary(io: CliIo, markdown: string): Promise<void> {
  const path = io.env.GITHUB_STEP_SUMMARY;
  if (!path) return;
  const file = await openForAppendNoFollow(path);
  try {
    await file.write(`${markdown}\n`, null, "utf8");
  } finally {
    await file.close();
  }
}
