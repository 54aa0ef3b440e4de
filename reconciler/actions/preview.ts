/**
 * `cubeform preview up|down|list|sweep`: a copy of the fleet per pull request (engine/preview.ts makes its desired state), planned
 * and applied by the usual machinery (lock, plan, pacing, journal, executors). Previews are found again from the live API alone,
 * so `down` and `sweep` need no file (one given: its cubes are never previews, and its preview.space is where they are).
 */
import {
  findPreviews,
  previewDesiredState,
  previewIdOf,
  previewIdProblem,
  previewMonthly,
  sweepSelection,
  withOthersClaimed,
  type ApplyResult,
  type DesiredState,
  type LivePreview,
  type Plan,
} from "../../engine/index.js";
import type { Cube } from "../../schema/api.js";
import type { Connection } from "../session/connect.js";
import type { StepWaits } from "../arguments/connect.js";
import { CliError } from "../errors.js";
import { outputWidth, useColor, type CliIo } from "../io.js";
import { DEFAULT_DNS_PACE } from "../report/dns-reads.js";
import { readReach } from "../report/reach.js";
import { renderPlan } from "../render/index.js";
import { hasChanges, overBudgetMessage } from "../render/values.js";
import { refusePolicyViolations, type PolicyFlags } from "../session/policy.js";
import { applyPlan, blockedLine, checkSecrets, failedLine, secretNamesOf } from "../watch/apply-plan.js";
import {
  renderPreviewListText,
  renderPreviewUpJson,
  renderPreviewUpMarkdown,
  renderPreviewUpText,
  renderRemovalJson,
  renderRemovalText,
  type PreviewCubeReport,
  type PreviewListEntry,
  type PreviewRemovalReport,
  type PreviewUpReport,
} from "../render/preview.js";
import {
  computePlan,
  loadForSession,
  observeConcurrency,
  withConnection,
  withSpaceLock,
  type LockFlags,
  type SessionContext,
} from "../session/session.js";

export interface PreviewContext extends SessionContext, LockFlags, StepWaits {
  format: "text" | "json" | "markdown";
  /** -f or --repo was given (down, list and sweep read a file only then). */
  fileGiven: boolean;
  allowUnknownCost: boolean;
  pricingTimeout?: number;
}

const progressOf = (ctx: PreviewContext, io: CliIo): NodeJS.WritableStream => (ctx.format === "text" ? io.stdout : io.stderr);

/** Applies a preview's plan with the command's waits, until done or the command is interrupted. */
function applyUntilStopped(conn: Connection, plan: Plan, desired: DesiredState, waits: StepWaits, io: CliIo, out: NodeJS.WritableStream) {
  return applyPlan(conn, plan, desired, {
    env: io.env,
    out,
    shouldStop: () => io.signal?.aborted === true,
    waitTimeoutMs: waits.waitTimeoutMs,
    pollIntervalMs: waits.pollIntervalMs,
    io,
  });
}

/** up: the policy files and overrides its plan is checked against (the fleet file's own policies: are checked without them). */
export async function runPreviewUp(ctx: PreviewContext & { id: string; policy?: PolicyFlags }, io: CliIo): Promise<number> {
  const loaded = await loadForSession(ctx, io);
  const preview = previewDesiredState(loaded.desired, ctx.id);
  const out = progressOf(ctx, io);
  const declared = new Set(loaded.desired.cubes.map((cube) => cube.name));
  return withConnection({ ...ctx, fileSpaceId: preview.spaceId, stopSendsOnSignal: true }, io, (conn) =>
    withSpaceLock(conn, "preview up", ctx, io, out, async () => {
      const live = await liveCubes(conn);
      const own = findPreviews(live, declared).find((p) => p.id === ctx.id)?.cubes ?? [];
      const desired = withOthersClaimed(preview, live, new Set(own.map((cube) => cube.id)));
      const { plan } = await computePlan(
        conn,
        desired,
        {
          targets: [],
          prune: true,
          allowReplace: true,
          allowUnknownCost: ctx.allowUnknownCost,
          ...(ctx.pricingTimeout === undefined ? {} : { pricingTimeout: ctx.pricingTimeout }),
          ...(ctx.policy ? { policy: ctx.policy } : {}),
        },
        ctx.rateLimit,
        out,
        loaded,
        io.env,
      );
      refuseForeignChanges(plan, new Set([ctx.id]));
      const names = new Set(preview.cubes.map((cube) => cube.name));
      out.write(renderPlan(plan, "text", { file: loaded.file, cubePositions: {}, color: useColor(io), width: outputWidth(out) }));
      const cost = checkCost(plan, names, loaded.desired, ctx);
      refuseOverBudget(plan);
      refusePolicyViolations(plan);
      checkSecrets(secretNamesOf(plan), io);
      const result = hasChanges(plan) ? await applyUntilStopped(conn, plan, desired, ctx, io, out) : undefined;
      const report = { ...(await upReport(conn, ctx.id, names, cost, result)), ...(plan.policy ? { policy: plan.policy } : {}) };
      io.stdout.write(
        ctx.format === "json"
          ? renderPreviewUpJson(report)
          : ctx.format === "markdown"
            ? renderPreviewUpMarkdown(report)
            : renderPreviewUpText(report),
      );
      if (result?.stopped === true) return stoppedExitCode(io);
      return report.converged && report.problems.length === 0 ? 0 : 1;
    }),
  );
}

export async function runPreviewDown(ctx: PreviewContext & { id: string }, io: CliIo): Promise<number> {
  checkIds([ctx.id], "--id");
  return removePreviews(ctx, io, `preview down ${ctx.id}`, (previews) => previews.filter((p) => p.id === ctx.id));
}

export async function runPreviewSweep(
  ctx: PreviewContext & { keep?: string[]; olderThanMs?: number; dryRun: boolean },
  io: CliIo,
): Promise<number> {
  // A mistyped keep list (`--keep 12,15`) would keep nothing: refused before anything is read.
  checkIds(ctx.keep ?? [], "--keep");
  const selection = {
    ...(ctx.keep ? { keep: new Set(ctx.keep) } : {}),
    ...(ctx.olderThanMs === undefined ? {} : { olderThanMs: ctx.olderThanMs }),
    now: Date.now(),
  };
  return removePreviews(ctx, io, "preview sweep", (previews) => sweepSelection(previews, selection), ctx.dryRun);
}

export async function runPreviewList(ctx: PreviewContext, io: CliIo): Promise<number> {
  const fleet = await fleetOf(ctx, io);
  return withConnection({ ...ctx, fileSpaceId: fleet.space }, io, async (conn) => {
    const previews = findPreviews(await liveCubes(conn), fleet.declared).map(listEntry);
    io.stdout.write(
      ctx.format === "json"
        ? `${JSON.stringify({ formatVersion: 1, spaceId: conn.spaceId, previews }, null, 2)}\n`
        : renderPreviewListText(conn.spaceId, previews),
    );
    return 0;
  });
}

const listEntry = (preview: LivePreview<Cube>): PreviewListEntry => ({
  id: preview.id,
  cubes: preview.cubes.map((cube) => ({ name: cube.name, id: cube.id, state: cube.state, protected: cube.terminationProtection })),
  lastChangedAt: preview.lastChangedAt ?? null,
});

/** Stopped by a signal: as apply, 130 (SIGINT) or 143 (SIGTERM); running the command again finishes the job. */
const stoppedExitCode = (io: CliIo): number => (io.signal?.reason === "SIGTERM" ? 143 : 130);

function checkIds(ids: readonly string[], flag: string): void {
  for (const id of ids) {
    const problem = previewIdProblem(id);
    if (problem !== undefined) throw new CliError("invalid_option", `invalid option ${flag}: ${problem}`);
  }
}

/** The file's declared names and preview space, when a file is given; nothing otherwise (an empty CI runner). */
async function fleetOf(ctx: PreviewContext, io: CliIo): Promise<{ declared: Set<string>; space?: string }> {
  if (!ctx.fileGiven) return { declared: new Set() };
  const { desired } = await loadForSession(ctx, io);
  const space = desired.preview?.space ?? desired.spaceId;
  return {
    declared: new Set([...desired.cubes.map((cube) => cube.name), ...(desired.untargeted ?? []).map((cube) => cube.name)]),
    ...(space === undefined ? {} : { space }),
  };
}

/**
 * Deletes the chosen previews' cubes through a plan that claims every other live cube by identity and prunes: what is left
 * unclaimed is exactly the chosen cubes, and a protected one is blocked, never deleted. Nothing to remove: exit 0.
 */
async function removePreviews(
  ctx: PreviewContext,
  io: CliIo,
  what: string,
  choose: (previews: LivePreview<Cube>[]) => LivePreview<Cube>[],
  dryRun = false,
): Promise<number> {
  const fleet = await fleetOf(ctx, io);
  const out = progressOf(ctx, io);
  return withConnection({ ...ctx, fileSpaceId: fleet.space, stopSendsOnSignal: true }, io, (conn) =>
    withSpaceLock(conn, what, ctx, io, out, async () => {
      const live = await liveCubes(conn);
      const chosen = choose(findPreviews(live, fleet.declared));
      const report: PreviewRemovalReport = {
        spaceId: conn.spaceId,
        previews: chosen.map((p) => ({ id: p.id, cubes: p.cubes.map((c) => c.name) })),
        removed: [],
        kept: [],
        mutationsSent: 0,
        ...(dryRun ? { dryRun } : {}),
      };
      const doomed = chosen.flatMap((p) => p.cubes);
      let stopped = false;
      if (doomed.length > 0 && !dryRun) {
        const desired = withOthersClaimed({ prune: true, cubes: [] }, live, new Set(doomed.map((cube) => cube.id)));
        const { plan } = await computePlan(conn, desired, { targets: [], prune: true, allowReplace: false }, ctx.rateLimit, out);
        refuseForeignChanges(plan, new Set(chosen.map((p) => p.id)));
        const result = await applyUntilStopped(conn, plan, desired, ctx, io, out);
        Object.assign(report, removalOutcome(result, doomed));
        stopped = result.stopped === true;
      }
      io.stdout.write(ctx.format === "json" ? renderRemovalJson(report) : renderRemovalText(report, what));
      if (stopped) return stoppedExitCode(io);
      return report.kept.length === 0 ? 0 : 1;
    }),
  );
}

function removalOutcome(result: ApplyResult, doomed: readonly Cube[]): Pick<PreviewRemovalReport, "removed" | "kept" | "mutationsSent"> {
  const waited = new Set(
    result.outcomes
      .filter((o) => o.status === "done" && o.step.op === "wait-deleted")
      .map((o) => ("cube" in o.step ? o.step.cube.cubeName : "")),
  );
  const blocked = new Map(
    result.blocked.map((c) => [
      c.cubeName,
      c.blocked?.code === "termination_protected"
        ? "termination protection is on (a preview never removes a protected cube)"
        : (c.blocked?.reason ?? "blocked"),
    ]),
  );
  const failed = new Map(
    result.outcomes
      .filter((o) => o.status === "failed" && "cube" in o.step)
      .map((o) => ["cube" in o.step ? o.step.cube.cubeName : "", o.error?.message ?? "failed"]),
  );
  const removed: string[] = [];
  const kept: { name: string; reason: string }[] = [];
  for (const cube of doomed) {
    if (waited.has(cube.name)) removed.push(cube.name);
    else kept.push({ name: cube.name, reason: blocked.get(cube.name) ?? failed.get(cube.name) ?? "not deleted (run again)" });
  }
  return { removed, kept, mutationsSent: result.mutationsSent };
}

async function liveCubes(conn: Connection): Promise<Cube[]> {
  const { observed } = await conn.deletions.exclude({
    spaceId: conn.spaceId,
    cubes: (await conn.client.listCubes())
      .filter((cube) => cube.state !== "deleted")
      .map((cube) => ({ cube, domains: [], tcpMappings: [] })),
    reads: 1,
    observedAt: new Date().toISOString(),
  });
  return observed.cubes.map((c) => c.cube);
}

/**
 * The invariant of every preview command: each change of its plan is to a cube of the previews it acts on. A cube created
 * by someone else between the listing and the plan's own reads would show up as unmanaged (and pruned): refused instead.
 */
function refuseForeignChanges(plan: Plan, ids: ReadonlySet<string>): void {
  const foreign = plan.changes.find((c) => c.action !== "noop" && !ids.has(previewIdOf(c.cubeName) ?? ""));
  if (foreign === undefined) return;
  throw new CliError(
    "space_changed",
    `refusing to go on: the plan would change ${foreign.address}, which is not a cube of ${[...ids].join(", ")} (the space changed while planning?); nothing was sent; run again`,
  );
}

/** The preview's monthly cost, refused above preview.maxMonthly (and, with a maximum, when the prices cannot be read). */
function checkCost(plan: Plan, names: ReadonlySet<string>, fleet: DesiredState, ctx: PreviewContext): PreviewUpReport["cost"] {
  const max = fleet.preview?.maxMonthly;
  const cost = plan.cost;
  if (cost === undefined || "unknown" in cost) {
    if (max !== undefined && !ctx.allowUnknownCost)
      throw new CliError(
        "unknown_cost",
        `refusing to create the preview: its cost is unknown (${cost?.unknown ?? "no prices"}) and preview.maxMonthly is ${max}; nothing was sent; pass --allow-unknown-cost to go ahead unchecked`,
      );
    return null;
  }
  const monthly = previewMonthly(cost, names);
  if (max !== undefined && monthly > max) {
    throw new CliError(
      "over_preview_budget",
      `refusing to create the preview: it would cost ${monthly.toFixed(2)} ${cost.currency}/month, above preview.maxMonthly ${max}; nothing was sent; make it smaller (preview.resources, preview.replicas) or raise preview.maxMonthly`,
    );
  }
  return { monthly, currency: cost.currency, ...(max === undefined ? {} : { maxMonthly: max }) };
}

function refuseOverBudget(plan: Plan): void {
  const over = overBudgetMessage(plan);
  if (over !== undefined) throw new CliError("over_budget", `refusing to create the preview: ${over}; nothing was sent`);
}

/** What a PR comment needs, read live after the apply: URLs, ssh commands, TCP addresses. */
async function upReport(
  conn: Connection,
  id: string,
  names: ReadonlySet<string>,
  cost: PreviewUpReport["cost"],
  result: ApplyResult | undefined,
): Promise<PreviewUpReport> {
  const cubes = (await conn.client.listCubes())
    .filter((cube) => cube.state !== "deleted" && names.has(cube.name))
    .sort((a, b) => a.name.localeCompare(b.name));
  const reach = await readReach(conn.client, cubes, { concurrency: observeConcurrency(conn), dnsPace: DEFAULT_DNS_PACE });
  const reports: PreviewCubeReport[] = reach.map((r) => ({
    name: r.name,
    id: r.id,
    state: r.state,
    urls: r.domains.map((d) => `https://${d.hostname}`),
    ssh: r.ssh?.command ?? null,
    tcp: r.tcp.flatMap((t) => (t.address === null ? [] : [t.address])),
  }));
  const problems = [
    ...(result?.outcomes.filter((o) => o.status === "failed").map(failedLine) ?? []),
    ...(result?.blocked.map(blockedLine) ?? []),
  ];
  const removed = (result?.outcomes ?? [])
    .filter((o) => o.status === "done" && o.step.op === "wait-deleted" && "cube" in o.step && !names.has(o.step.cube.cubeName))
    .map((o) => ("cube" in o.step ? o.step.cube.cubeName : ""));
  return {
    id,
    spaceId: conn.spaceId,
    cubes: reports,
    cost,
    mutationsSent: result?.mutationsSent ?? 0,
    converged: result === undefined || result.converged,
    problems,
    removed,
  };
}
