/** Output formats: pure functions from a plan (or drift report) to text. */
import type { Plan } from "../../engine/types.js";
import type { Format } from "../arguments/options.js";
import { renderDriftGithub, renderPlanGithub } from "./github.js";
import { driftJsonChunks, planJsonChunks, writeChunks } from "./json.js";
import { renderDriftMarkdown, renderPlanMarkdown } from "./markdown.js";
import { renderDriftText, renderPlanText } from "./text.js";
import type { DriftReport, RenderContext } from "./types.js";

export type { DriftReport, DomainDnsCheck, RenderContext } from "./types.js";
export { renderPlanMarkdown, renderDriftMarkdown } from "./markdown.js";
export { JSON_FORMAT_VERSION, leanChange, type PlanJson } from "./json.js";

export function renderPlan(plan: Plan, format: Format, ctx: RenderContext): string {
  if (format === "json") return [...planJsonChunks(plan)].join("");
  return { markdown: renderPlanMarkdown, github: renderPlanGithub, text: renderPlanText }[format](plan, ctx);
}

export function renderDrift(report: DriftReport, format: Format, ctx: RenderContext): string {
  if (format === "json") return [...driftJsonChunks(report)].join("");
  return { markdown: renderDriftMarkdown, github: renderDriftGithub, text: renderDriftText }[format](report, ctx);
}

/** renderPlan onto a stream; JSON goes out change by change, as fast as the stream takes it. */
export async function writePlan(out: NodeJS.WritableStream, plan: Plan, format: Format, ctx: RenderContext): Promise<void> {
  if (format === "json") await writeChunks(out, planJsonChunks(plan));
  else out.write(renderPlan(plan, format, ctx));
}

export async function writeDrift(out: NodeJS.WritableStream, report: DriftReport, format: Format, ctx: RenderContext): Promise<void> {
  if (format === "json") await writeChunks(out, driftJsonChunks(report));
  else out.write(renderDrift(report, format, ctx));
}
