/** `cubeform apply [plan.json]`: plan and ask (or --auto-approve); with a saved plan, refuse it if the space changed since, else carry out exactly its steps. */
import { resolve } from "node:path";
import { checkPlanIsCurrent, type ApplyResult, type DesiredState, type Plan } from "../../engine/index.js";
import type { DnsRecord } from "../../schema/api.js";
import type { Connection } from "../session/connect.js";
import type { StepWaits } from "../arguments/connect.js";
import { CliError } from "../errors.js";
import { confirm } from "../prompt.js";
import { writeLine, type CliIo } from "../io.js";
import { DEFAULT_DNS_PACE } from "../report/dns-reads.js";
import { proxyAdvice, readReach, renderReachText, type CubeReach } from "../report/reach.js";
import { renderPlan } from "../render/index.js";
import { escapeText } from "../render/escape.js";
import { hasChanges, overBudgetMessage, visibleChanges } from "../render/values.js";
import { readSavedPlan, type SavedPlan } from "../session/saved-plan.js";
import { canRecheck, refuseChangedSources } from "../session/saved-plan-sources.js";
import { STDIN } from "../../desired/index.js";
import { renderContext } from "../render/context.js";
import { rememberLoadedSecrets } from "../redact.js";
import {
  checkPolicies,
  policyRules,
  refusedLines,
  refuseWhenAllRefused,
  withoutRefusedChanges,
  type PolicyFlags,
} from "../session/policy.js";
import type { ObservedState, PolicyOverride } from "../../engine/index.js";
import { applyPlan, blockedLine, checkSecrets, failedLine, mutationsSent, secretNamesOf } from "../watch/apply-plan.js";
import { ApplyNotices, notifySource, type NotifySettings } from "../notify/index.js";
import { ApplyStatusReport, type CommitStatusSettings } from "../commit-status/index.js";
import type { RepoLoaded } from "../../desired/index.js";
import {
  computePlan,
  loadForSession,
  observeConcurrency,
  planAgain,
  sameJson,
  withConnection,
  withSpaceLock,
  type LockFlags,
  type PlanFlags,
  type SessionContext,
} from "../session/session.js";

export interface ApplyContext extends SessionContext, PlanFlags, LockFlags, StepWaits {
  /** A plan saved by `plan --out`. */
  planFile?: string;
  autoApprove: boolean;
  /** text: everything on stdout. json: the result as JSON on stdout, progress on stderr. */
  format: "text" | "json";
  /** --notify: events of this apply (failed, rollout reverted, refused for the budget or a policy, overrides used). */
  notify?: NotifySettings | undefined;
  /** --status-provider (with --repo): commit statuses for this run. */
  commitStatus?: CommitStatusSettings;
}

/** Where the human-readable progress goes: stderr when stdout carries JSON. */
const progressOut = (ctx: ApplyContext, io: CliIo): NodeJS.WritableStream => (ctx.format === "json" ? io.stderr : io.stdout);

export async function runApply(ctx: ApplyContext, io: CliIo): Promise<number> {
  if (ctx.notify === undefined) return applyOnce(ctx, io);
  const notices = new ApplyNotices(ctx.notify, notifySource(ctx), io);
  try {
    return await applyOnce(ctx, io, notices);
  } catch (error) {
    notices.failed(error, io);
    throw error;
  } finally {
    await notices.close(io);
  }
}

async function applyOnce(ctx: ApplyContext, io: CliIo, notices?: ApplyNotices): Promise<number> {
  if (ctx.planFile !== undefined) return applySavedPlan(ctx, ctx.planFile, io, notices);
  if (ctx.commitStatus === undefined) return applySource(ctx, io, notices);
  // --status-provider: pending once the commit is loaded, success or failure when apply ends (a commit that does not load: failure).
  const report = new ApplyStatusReport(ctx.commitStatus, io, () => ctx.repo?.lastCommit);
  return report.around(
    () => applySource(ctx, io, notices, report),
    () => withConnection(ctx, io, async (conn) => conn.spaceId),
  );
}

async function applySource(ctx: ApplyContext, io: CliIo, notices?: ApplyNotices, report?: ApplyStatusReport): Promise<number> {
  const loaded = await loadForSession(ctx, io);
  const out = progressOut(ctx, io);
  return withConnection({ ...ctx, fileSpaceId: loaded.desired.spaceId, stopSendsOnSignal: true }, io, (conn) =>
    withSpaceLock(conn, "apply", ctx, io, out, async () => {
      report?.started(conn.spaceId, (loaded as Partial<RepoLoaded>).revision?.revision);
      const { plan: planned } = await computePlan(conn, loaded.desired, ctx, ctx.rateLimit, out, loaded, io.env);
      const plan = withoutRefusedChanges(planned);
      notices?.planned(plan);
      out.write(renderPlan(plan, "text", renderContext(loaded, io)));
      refuseOverBudget(plan);
      refuseWhenAllRefused(planned, plan);
      for (const line of refusedLines(plan)) writeLine(out, `\n${line}`);
      if (!hasChanges(plan)) {
        if (ctx.format === "json")
          io.stdout.write(renderApplyResultJson({ outcomes: [], blocked: [], after: plan, converged: true, mutationsSent: 0 }));
        return 0;
      }
      const applicable = visibleChanges(plan).filter((c) => c.blocked === undefined).length;
      if (applicable > 0 && !ctx.autoApprove) await confirmApply(applicable, io, out);
      writeLine(out, applicable > 0 ? "\nApplying:" : "\nNothing can be applied: every change is blocked.");
      checkSecrets(loaded.secretEnvNames, io);
      return execute(conn, plan, loaded.desired, ctx, io, notices, report);
    }),
  );
}

async function applySavedPlan(ctx: ApplyContext, planFile: string, io: CliIo, notices?: ApplyNotices): Promise<number> {
  const saved = await readSavedPlan(resolve(ctx.cwd, planFile), planFile, io.env);
  rememberLoadedSecrets(io, { envNames: Object.keys(saved.env?.digests ?? {}), secretEnvNames: secretNamesOf(saved) });
  const sources = saved.sources;
  const checkable = canRecheck(sources);
  if (checkable) await refuseChangedSources(sources, saved.desired, planFile, io.env);
  // .cubeform/ beside the files the plan was made from (where plan found the emulator's state).
  const files = sources?.files.map((file) => (file === STDIN ? file : resolve(sources.cwd, file))) ?? [];
  const out = progressOut(ctx, io);
  return withConnection({ ...ctx, files, fileSpaceId: saved.desired.spaceId, stopSendsOnSignal: true }, io, (conn) =>
    withSpaceLock(conn, "apply", ctx, io, out, async () => {
      if (saved.spaceId !== conn.spaceId)
        throw new CliError(
          "plan_other_space",
          `${planFile} was made for space ${saved.spaceId}, but this run is connected to space ${conn.spaceId}`,
        );
      const { plan: planned, observed } = await planAgain(
        conn,
        saved.desired,
        { ...saved.options, rateLimit: ctx.rateLimit },
        ctx,
        io.env,
        out,
      );
      try {
        checkPlanIsCurrent(saved, observed);
      } catch (e) {
        if ((e as { code?: unknown }).code !== "stale_plan") throw e;
        throw new CliError(
          "stale_plan",
          `refusing to apply ${planFile}: ${(e as Error).message.replace(/\. Run plan again\.$/, "")}; run \`cubeform plan --out ${planFile}\` again`,
        );
      }
      refuseRewrittenSteps(saved, planned, planFile);
      if (saved.source !== undefined) planned.source = saved.source;
      recheckPolicies(saved, planned, observed, ctx.policy, planFile);
      const plan = withoutRefusedChanges(planned);
      notices?.planned(plan);
      // What is about to be done, field by field, as apply derived it again (a CI log keeps it).
      out.write(renderPlan(plan, "text", renderContext({ file: saved.file, cubePositions: {} }, io)));
      refuseOverBudget(plan);
      refuseWhenAllRefused(planned, plan);
      for (const line of refusedLines(plan)) writeLine(out, `\n${line}`);
      writeLine(
        out,
        `\n${escapeText(`Applying the ${plural(plan.steps.length, "step", "steps")} of ${planFile} (made from ${saved.file}${checkable ? ", unchanged since" : "; apply cannot read it again to check that it is unchanged"}).`)}`,
      );
      checkSecrets(secretNamesOf(plan), io);
      return execute(conn, plan, saved.desired, ctx, io, notices);
    }),
  );
}

/**
 * Apply sends only the steps it derives itself: a plan file whose steps are not what its desired
 * state makes of the space (edited, digest recomputed) is refused, and nothing is sent.
 */
function refuseRewrittenSteps(saved: SavedPlan, derived: Plan, planFile: string): void {
  if (sameJson(JSON.parse(JSON.stringify(derived.steps)), saved.steps)) return;
  throw new CliError(
    "plan_modified",
    `refusing to apply ${planFile}: the plan file's steps do not match its desired state (edited after it was saved?); make a new plan: cubeform plan --out ${planFile}`,
  );
}

/**
 * A saved plan's policies are judged again on the steps apply derived, with the policy files apply is given
 * (never rules or results read from the plan file). Overrides recorded at plan time count for the rules that
 * still exist; a plan checked against policy files cannot be applied without them.
 */
function recheckPolicies(saved: SavedPlan, plan: Plan, observed: ObservedState, flags: PolicyFlags | undefined, planFile: string): void {
  const rules = policyRules(flags, saved.desired);
  if (saved.policy !== undefined && (flags?.files.length ?? 0) === 0 && rules.length === 0) {
    throw new CliError(
      "policy_files_missing",
      `refusing to apply ${planFile}: it was checked against policy rules; give apply the same policy files (--policy FILE or CUBEFORM_POLICY)`,
    );
  }
  const names = new Set(rules.map((r) => r.rule.name));
  const given = flags?.overrides ?? [];
  const recorded = (saved.policy?.overrides ?? []).filter((o) => names.has(o.rule) && !given.some((g) => g.rule === o.rule));
  checkPolicies(plan, rules, { desired: saved.desired, observed, overrides: [...recorded, ...given] });
}

function refuseOverBudget(plan: Plan): void {
  const over = overBudgetMessage(plan);
  if (over === undefined) return;
  if (plan.cost !== undefined && "unknown" in plan.cost)
    throw new CliError(
      "unknown_cost",
      `refusing to apply: ${over}; try again when the prices can be read, or pass --allow-unknown-cost to apply without checking the budget`,
    );
  throw new CliError("over_budget", `refusing to apply: ${over}; lower those cubes, or raise budget.monthly in the file`);
}

function confirmApply(changes: number, io: CliIo, out: NodeJS.WritableStream): Promise<void> {
  const question = `\n${changes === 1 ? "Apply this change?" : `Apply these ${changes} changes?`}`;
  const withoutTerminal =
    "refusing to apply without confirmation: stdin is not a terminal; pass --auto-approve, or save a plan (cubeform plan --out plan.json) and apply it (cubeform apply plan.json)";
  return confirm({ question, what: "apply", withoutTerminal }, io, out);
}

async function execute(
  conn: Connection,
  plan: Plan,
  desired: DesiredState,
  ctx: ApplyContext,
  io: CliIo,
  notices?: ApplyNotices,
  statuses?: ApplyStatusReport,
): Promise<number> {
  const { waitTimeoutMs, pollIntervalMs } = ctx;
  const result = await applyPlan(conn, plan, desired, {
    env: io.env,
    out: progressOut(ctx, io),
    shouldStop: () => io.signal?.aborted === true,
    waitTimeoutMs,
    pollIntervalMs,
    io,
  });
  notices?.applied(result);
  statuses?.applied(result);
  const others = ctx.targets.length > 0 && !result.stopped ? await untargetedDifferences(conn, desired, ctx) : undefined;
  const reach = result.stopped ? {} : await reachAfterApply(conn, result);
  const overrides = plan.policy?.overrides;
  const report = {
    ...result,
    ...(others ? { untargeted: others } : {}),
    ...reach,
    ...(overrides?.length ? { policyOverrides: overrides } : {}),
  };
  io.stdout.write(ctx.format === "json" ? renderApplyResultJson(report) : renderApplyResult(report));
  if (result.stopped) return io.signal?.reason === "SIGTERM" ? 143 : 130;
  return applyExitCode(result);
}

/** With --target, the cubes left out that still differ from the file: the space as a whole may not match. */
async function untargetedDifferences(conn: Connection, desired: DesiredState, ctx: ApplyContext): Promise<string[]> {
  const { plan } = await computePlan(conn, desired, { ...ctx, targets: [] }, ctx.rateLimit);
  const targeted = new Set(ctx.targets);
  return [
    ...new Set(
      visibleChanges(plan)
        .filter((c) => !targeted.has(c.cubeName))
        .map((c) => c.cubeName),
    ),
  ];
}

/** What apply did, plus (with --target) the other cubes that still differ, and how to reach the cubes it changed. */
export type ApplyReport = ApplyResult & { untargeted?: string[]; policyOverrides?: PolicyOverride[] } & ReachReport;

interface ReachReport {
  reach?: CubeReach[];
  /** Changed cubes left out of `reach` (at most REACH_SHOWN are read). */
  reachLeftOut?: number;
  /** Why `reach` could not be read. */
  reachError?: string;
}

/** After a large apply, the rest is one `cubeform show` away. */
export const REACH_SHOWN = 20;

/** How to reach the cubes this apply changed (created, updated, given domains or ports), read live. */
async function reachAfterApply(conn: Connection, result: ApplyResult): Promise<ReachReport> {
  const changed = new Set<string>();
  for (const o of result.outcomes) {
    if (o.status === "done" && "cube" in o.step && o.step.op !== "delete-cube" && o.step.op !== "wait-deleted")
      changed.add(o.step.cube.cubeName);
  }
  if (changed.size === 0) return { reach: [] };
  const read = async (): Promise<ReachReport> => {
    const live = (await conn.client.listCubes())
      .filter((cube) => cube.state !== "deleted" && changed.has(cube.name))
      .sort((a, b) => a.name.localeCompare(b.name));
    const reach = await readReach(conn.client, live.slice(0, REACH_SHOWN), {
      concurrency: observeConcurrency(conn),
      dnsPace: DEFAULT_DNS_PACE,
    });
    return { reach, ...(live.length > REACH_SHOWN ? { reachLeftOut: live.length - REACH_SHOWN } : {}) };
  };
  // The apply's own result is printed whatever these extra reads do: a deadline bounds them.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${REACH_DEADLINE_MS / 1000} s`)), REACH_DEADLINE_MS)),
  );
  try {
    return await Promise.race([read(), deadline]);
  } catch (e) {
    return { reachError: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}

const REACH_DEADLINE_MS = 60_000;

export function applyExitCode(result: ApplyResult): number {
  const failed = result.outcomes.some((o) => o.status === "failed");
  return result.converged && !failed && result.blocked.length === 0 ? 0 : 1;
}

/** Pure: the result for scripts. Steps carry what they did, never request bodies (no secrets, no userData). */
export function renderApplyResultJson(result: ApplyReport): string {
  const report = {
    formatVersion: 1,
    spaceId: result.after.spaceId,
    converged: result.converged,
    ...(result.stopped ? { stopped: true } : {}),
    matchesFile: matchesFile(result),
    mutationsSent: result.mutationsSent,
    outcomes: result.outcomes.map((o) => ({
      op: o.step.op,
      address: o.step.address,
      status: o.status,
      ...(o.error ? { error: o.error } : {}),
      ...(o.createdId ? { createdId: o.createdId } : {}),
      ...(o.records ? { records: o.records } : {}),
    })),
    blocked: result.blocked.map((c) => ({ address: c.address, code: c.blocked?.code, reason: c.blocked?.reason })),
    remaining: visibleChanges(result.after).map((c) => ({
      address: c.address,
      action: c.action,
      ...(c.blocked ? { blocked: c.blocked.code } : {}),
    })),
    ...(result.untargeted ? { untargetedDiffering: result.untargeted } : {}),
    ...(result.policyOverrides ? { policyOverrides: result.policyOverrides } : {}),
    reach: result.reach ?? [],
    ...(result.reachLeftOut ? { reachLeftOut: result.reachLeftOut } : {}),
    ...(result.reachError ? { reachError: result.reachError } : {}),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Pure: what apply did, what is left, and how to reach the cubes it changed (their DNS records among it). */
export function renderApplyResult(result: ApplyReport): string {
  const lines: string[] = [""];
  // Without the live reach (it could not be read), at least the records the attaches returned.
  if (result.reach === undefined) lines.push(...dnsLines(result));
  const failed = result.outcomes.filter((o) => o.status === "failed" && o.error?.code !== "stopped");
  lines.push(...failed.map(failedLine), ...result.blocked.map(blockedLine));
  const done = result.outcomes.filter((o) => o.status === "done").length;
  const skipped = result.outcomes.filter((o) => o.status === "skipped").length;
  if (result.stopped) {
    lines.push(...stoppedLines(result));
    return `${lines.join("\n")}\n`;
  }
  lines.push(
    `Apply finished: ${plural(done, "step", "steps")} done, ${failed.length} failed, ${skipped} skipped, ${result.blocked.length} blocked; ${mutationsSent(result.mutationsSent)}.`,
  );
  lines.push(convergenceLine(result));
  for (const o of result.policyOverrides ?? []) lines.push(escapeText(`Policy rule ${o.rule} was overridden for this apply: ${o.reason}`));
  lines.push(...reachLines(result));
  return `${lines.join("\n")}\n`;
}

function reachLines(result: ApplyReport): string[] {
  if (result.reachError !== undefined)
    return ["", `Could not read how to reach the cubes: ${result.reachError}; run \`cubeform show\` to see it.`];
  if (result.reach === undefined || result.reach.length === 0) return [];
  const lines = [
    "",
    "How to reach the cubes this apply changed (`cubeform show` prints this for every cube):",
    renderReachText(result.reach).trimEnd(),
  ];
  if (result.reachLeftOut)
    lines.push(`…and ${result.reachLeftOut} more ${result.reachLeftOut === 1 ? "cube" : "cubes"}: \`cubeform show\` lists them all.`);
  return lines;
}

/** After a stop request: what was done, what was not (never sent), and what to do next. */
export function stoppedLines(result: ApplyReport): string[] {
  const done = result.outcomes.filter((o) => o.status === "done");
  const notDone = result.outcomes.filter((o) => o.status !== "done" && !(o.status === "failed" && o.error?.code !== "stopped"));
  const lines = [
    `Stopped: ${done.length} of ${result.outcomes.length} steps done; ${mutationsSent(result.mutationsSent)}; nothing was sent after the stop request.`,
  ];
  for (const o of done) lines.push(`  done:     ${o.step.op} ${o.step.address}`);
  for (const o of notDone) lines.push(`  not done: ${o.step.op} ${o.step.address}`);
  lines.push("The space does not match the file yet: run `cubeform apply` again to finish.");
  return lines;
}

/** True only when nothing at all differs: no open change, no blocked one, no untargeted cube. */
export function matchesFile(result: ApplyReport): boolean {
  return visibleChanges(result.after).length === 0 && result.blocked.length === 0 && (result.untargeted?.length ?? 0) === 0;
}

/** "The space matches the file." only when it does; otherwise what remains and why. */
export function convergenceLine(result: ApplyReport): string {
  const remaining = visibleChanges(result.after);
  const open = remaining.filter((c) => c.blocked === undefined).length;
  const blocked = Math.max(remaining.length - open, result.blocked.length);
  if (open > 0)
    return `The space has not converged: ${plural(open, "change remains", "changes remain")}; run \`cubeform plan\` to see them.`;
  if (blocked > 0) {
    return `The space does not match the file: ${plural(blocked, "blocked change remains", "blocked changes remain")} (the reasons are above); change the file or the cube as the reason says, then apply again.`;
  }
  const others = result.untargeted ?? [];
  if (others.length > 0) {
    return `The targeted cubes match the file, but the space does not: ${plural(others.length, "other cube differs", "other cubes differ")} (${others.map((n) => `"${n}"`).join(", ")}), left out by --target; run \`cubeform plan\` to see them.`;
  }
  return "The space matches the file.";
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function dnsLines(result: ApplyResult): string[] {
  const attached = result.outcomes.filter((o) => o.records !== undefined && o.records.length > 0 && o.step.op === "attach-domain");
  if (attached.length === 0) return [];
  const lines = ["DNS records to publish for the attached domains:"];
  for (const o of attached) {
    const hostname = o.step.op === "attach-domain" ? o.step.body.hostname : o.step.address;
    lines.push(`  ${hostname}:`);
    for (const r of o.records ?? []) lines.push(`    ${dnsRecordLine(r)}`);
  }
  lines.push("");
  return lines;
}

export function dnsRecordLine(r: Pick<DnsRecord, "type" | "host" | "value" | "mustBeGrey" | "proxyOk">): string {
  const advice = proxyAdvice(r);
  return `${r.type.padEnd(5)} ${r.host} → ${r.value}${advice ? `  [${advice}]` : ""}`;
}
