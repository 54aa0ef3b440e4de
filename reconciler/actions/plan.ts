/** `cubeform plan`: load → connect → observe → diff → render. Exit 0 in sync, 2 with changes. */
import { writeLine, type CliIo } from "../io.js";
import { renderPlanMarkdown, writePlan } from "../render/index.js";
import { renderContext } from "../render/context.js";
import { appendStepSummary } from "../render/step-summary.js";
import { exitCodeOf } from "../report/exit-codes.js";
import { resolve } from "node:path";
import { writeSavedPlan } from "../session/saved-plan.js";
import { computePlan, loadForSession, withConnection, type PlanFlags, type SessionContext } from "../session/session.js";

export interface PlanContext extends SessionContext, PlanFlags {
  /** Where to save the plan for `apply plan.json`. */
  out?: string;
  /** What exits 2: any change (the default), or only a blocked one (a pull request's check). */
  failOn?: "changes" | "blocked" | "policy";
}

export async function runPlan(ctx: PlanContext, io: CliIo): Promise<number> {
  // A saved plan keeps the whole desired state (apply reports the untargeted cubes that differ).
  const loaded = await loadForSession(ctx, io, { targetedLoad: ctx.out === undefined });
  const plan = await withConnection(
    { ...ctx, fileSpaceId: loaded.desired.spaceId },
    io,
    async (conn) => (await computePlan(conn, loaded.desired, ctx, ctx.rateLimit, io.stderr, loaded, io.env)).plan,
  );
  await writePlan(io.stdout, plan, ctx.format, renderContext(loaded, io));
  if (ctx.format === "github") await appendStepSummary(io, renderPlanMarkdown(plan, renderContext(loaded, io)));
  if (ctx.out !== undefined) {
    await writeSavedPlan(
      resolve(ctx.cwd, ctx.out),
      plan,
      loaded.desired,
      loaded.file,
      { files: ctx.files, cwd: resolve(ctx.cwd) },
      { names: loaded.envNames, env: io.env },
    );
    if (ctx.format === "text")
      writeLine(io.stdout, `\nSaved the plan to ${ctx.out}. Apply exactly these steps with: cubeform apply ${ctx.out}`);
  }
  return exitCodeOf(plan, ctx.failOn);
}
