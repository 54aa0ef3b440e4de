/**
 * `cubeform watch`: the GitOps loop. Each round re-reads the file, observes and plans; with
 * --apply it carries the plan out, else it reports the drift. A stop request (the injected
 * signal) lets the step under way finish, then ends the loop with exit 0.
 */
import { readFile } from "node:fs/promises";
import type { ApplyResult, Plan } from "../../engine/index.js";
import type { Connection, RateLimit } from "../connect.js";
import { CliError, formatProblem, hasCode, LoadError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { LoadCache } from "../../desired/load.js";
import { loadDesiredFiles, STDIN, type LoadedFiles } from "../../desired/sources.js";
import { WatchHealth } from "../metrics/health.js";
import { serveMetrics, type MetricsServer } from "../metrics/server.js";
import { watchMetrics, type WatchMetrics } from "../metrics/watch-metrics.js";
import { renderPlan } from "../render/index.js";
import { blockedChanges, summaryLine, visibleChanges } from "../render/values.js";
import { applyPlan, applySummaryLines, firstFailure } from "../watch/apply-plan.js";
import { Backoff } from "../watch/backoff.js";
import { formatDuration } from "../../system/time.js";
import { startListener, type Listener } from "../watch/listener.js";
import { runLoop, TerminalError, type Result } from "../watch/loop.js";
import { Wake } from "../watch/wake.js";
import { renderContext } from "./plan.js";
import { computePlan, withConnection, withSpaceLock, type PlanFlags, type PlanMemo } from "./session.js";

export interface WatchContext extends PlanFlags {
  files: string[];
  cwd: string;
  emulator: boolean;
  rateLimit: RateLimit;
  apply: boolean;
  intervalMs: number;
  once: boolean;
  /** undefined: no HTTP endpoints. */
  metricsPort?: number;
  metricsHost: string;
  waitTimeoutMs: number;
  pollIntervalMs: number;
  /** Stops the loop (SIGTERM/SIGINT in the CLI). */
  signal: AbortSignal;
  /** `--listen`: where to receive the service's webhook deliveries; a relevant event starts a round at once. */
  listen?: { host: string; port: number };
  /** With --apply, how long a round waits for another run's lock of the space (default: one interval). */
  lockTimeoutMs?: number;
}

/** How far failed rounds back off at most. */
export const MAX_BACKOFF_MS = 5 * 60_000;

/** Codes of errors that a retry in a few seconds cannot fix; the loop waits for the interval instead. */
const TERMINAL_CODES = new Set(["bad_request", "unauthorized", "forbidden", "termination_protected", "proxy_protocol_port_mismatch", "unprocessable", "missing_secret", "invalid_file", "file_unreadable"]);

export async function runWatch(ctx: WatchContext, io: CliIo): Promise<number> {
  if (ctx.files.includes(STDIN)) throw new CliError("invalid_option", "watch re-reads the file every round, so it cannot read it from standard input (-f -): name a file or directory");
  const metrics = watchMetrics();
  const health = new WatchHealth(ctx.intervalMs, stuckAfterMs(ctx));
  const server = ctx.metricsPort === undefined ? undefined : await startServer(ctx, metrics, health, io);
  try {
    return await withConnection({ ...ctx, format: "text", stopSendsOnSignal: true, repeatedReads: true }, io, async (conn) => {
      const watcher = new Watcher(ctx, io, conn, metrics, health);
      const wake = new Wake();
      const listener = ctx.listen === undefined ? undefined : await listen(ctx, ctx.listen, wake, io);
      const what = ctx.apply ? " (applying changes)" : " (reporting drift; --apply to repair it)";
      const when = ctx.once ? "once" : `every ${formatDuration(ctx.intervalMs)}`;
      writeLine(io.stderr, `watching ${ctx.files.join(", ")} ${when}${what}`);
      const { lastRoundFailed } = await runLoop({
        wait: (ms, signal) => wake.wait(ms, signal),
        reconcile: () => watcher.round(),
        intervalMs: ctx.intervalMs,
        backoff: new Backoff({ initialMs: Math.min(1000, ctx.intervalMs), maxMs: Math.max(MAX_BACKOFF_MS, ctx.intervalMs) }),
        signal: ctx.signal,
        once: ctx.once,
        onFailure: (error, info) => watcher.reportFailure(error, info.retryInMs),
        fatal: (error) => watcher.fatal(error),
      });
      await listener?.close();
      if (ctx.signal.aborted) writeLine(io.stderr, "stopped: the step under way was finished, nothing is half-sent");
      return ctx.once && lastRoundFailed ? 1 : 0;
    });
  } finally {
    health.loopEnded();
    await server?.close();
  }
}

/**
 * The webhook receiver: deliveries are verified against the signing secrets in the secretFiles
 * of the file's webhook endpoints (re-read per delivery: a replacement writes a new secret).
 */
async function listen(ctx: WatchContext, address: { host: string; port: number }, wake: Wake, io: CliIo): Promise<Listener> {
  const secrets = async (): Promise<string[]> => {
    const loaded = await loadDesiredFiles({ files: ctx.files, cwd: ctx.cwd, env: io.env }).catch(() => undefined);
    const paths = (loaded?.desired.webhooks ?? []).map((webhook) => webhook.secretPath);
    const texts = await Promise.all(paths.map((path) => readFile(path, "utf8").catch(() => "")));
    return texts.map((text) => text.trim()).filter((text) => text !== "");
  };
  const listener = await startListener({
    ...address,
    secrets,
    onEvent: (event, deliveryId) => {
      writeLine(io.stderr, `[${new Date().toISOString()}] event ${event}${deliveryId ? ` (${deliveryId})` : ""}: starting a round`);
      wake.fire();
    },
    onRefused: (reason) => writeLine(io.stderr, `[${new Date().toISOString()}] ${reason}`),
  });
  writeLine(io.stderr, `listening for webhook deliveries on ${listener.url} (signatures checked against the webhooks' secretFiles)`);
  return listener;
}

/** A round longer than this is stuck: every wait of a round's steps, plus pacing, plus slack. */
function stuckAfterMs(ctx: WatchContext): number {
  return Math.max(3 * ctx.intervalMs, 2 * ctx.waitTimeoutMs + 10 * 60_000);
}

async function startServer(ctx: WatchContext, metrics: WatchMetrics, health: WatchHealth, io: CliIo): Promise<MetricsServer> {
  const server = await serveMetrics({ host: ctx.metricsHost, port: ctx.metricsPort ?? 0, registry: metrics.registry, health: () => health.ready(), live: () => health.live() });
  writeLine(io.stderr, `metrics: ${server.url}/metrics (health: ${server.url}/healthz, ${server.url}/livez, ${server.url}/readyz)`);
  return server;
}

class Watcher {
  private roundNumber = 0;
  private lastReported = "";

  constructor(
    private readonly ctx: WatchContext,
    private readonly io: CliIo,
    private readonly conn: Connection,
    private readonly metrics: WatchMetrics,
    /** /livez and /readyz (= /healthz). */
    private readonly health: WatchHealth,
  ) {
    this.planMemo = { keepPlansWithSteps: !ctx.apply };
  }

  private succeeded = false;
  /** Rounds re-read the files, but an unchanged file is not parsed and checked again. */
  private readonly loadCache = new LoadCache();
  /** An in-sync plan is answered again while the file and the space are unchanged (computePlan). */
  private readonly planMemo: PlanMemo;

  async round(): Promise<Result> {
    this.roundNumber++;
    this.conn.readMemo?.nextRound();
    this.health.roundStarted();
    try {
      const result = await this.reconcile();
      this.health.roundSucceeded();
      this.succeeded = true;
      this.metrics.lastSuccess.set(this.health.lastSuccessSeconds());
      return result;
    } catch (error) {
      // A stop request cut the round short: the client sent nothing new; not a failure.
      if (this.ctx.signal.aborted && hasCode(error) && error.code === "stopped") return {};
      this.metrics.roundErrors.inc();
      this.health.roundFailed(messageOf(error));
      throw classify(error);
    } finally {
      this.metrics.rounds.inc();
    }
  }

  /**
   * A rejected key (401/403) before any round succeeded ends watch at once, whether or not
   * CUBE_SPACE_ID is set (without it, connecting already asked the API and failed the same way).
   */
  fatal(error: unknown): Error | undefined {
    const cause = error instanceof TerminalError ? error.cause : error;
    if (this.succeeded || !hasCode(cause) || (cause.code !== "unauthorized" && cause.code !== "forbidden")) return undefined;
    return new CliError(cause.code, `the API refused the key: ${messageOf(cause)}; check CUBE_API_KEY (and CUBE_SPACE_ID)`);
  }

  reportFailure(error: unknown, retryInMs: number): void {
    if (error instanceof TerminalError && error.cause instanceof LoadError) {
      for (const problem of error.cause.problems) writeLine(this.io.stderr, formatProblem(problem));
    }
    const when = error instanceof TerminalError ? `next round in ${formatDuration(retryInMs)}` : `retrying in ${formatDuration(retryInMs)}`;
    writeLine(this.io.stderr, `${this.prefix()} failed: ${messageOf(error)}${this.ctx.once ? "" : `; ${when}`}`);
  }

  private reconcile(): Promise<Result> {
    if (!this.ctx.apply) return this.planAndApply();
    // One writer per space: a manual apply beside this loop waits for the round, or the round for it.
    const lockTimeoutMs = this.ctx.lockTimeoutMs ?? this.ctx.intervalMs;
    return withSpaceLock(this.conn, "watch --apply", { cwd: this.ctx.cwd, lockTimeoutMs }, this.io, this.io.stderr, () => this.planAndApply());
  }

  private async planAndApply(): Promise<Result> {
    const loaded = await loadDesiredFiles({ files: this.ctx.files, cwd: this.ctx.cwd, env: this.io.env, cache: this.loadCache });
    const { plan } = await computePlan(this.conn, loaded.desired, this.ctx, this.ctx.rateLimit, undefined, loaded, this.io.env, this.planMemo);
    this.record(plan);
    if (!this.ctx.apply || plan.steps.length === 0 || this.ctx.signal.aborted) {
      this.reportPlan(plan, loaded);
      return {};
    }
    writeLine(this.io.stdout, `${this.prefix()}: applying ${plan.steps.length} steps (${summaryLine(plan)})`);
    const result = await applyPlan(this.conn, plan, loaded.desired, {
      env: this.io.env,
      out: this.io.stdout,
      shouldStop: () => this.ctx.signal.aborted,
      waitTimeoutMs: this.ctx.waitTimeoutMs,
      pollIntervalMs: this.ctx.pollIntervalMs,
    });
    return this.afterApply(result);
  }

  private afterApply(result: ApplyResult): Result {
    this.metrics.mutations.inc(result.mutationsSent);
    this.record(result.after);
    for (const line of applySummaryLines(result)) writeLine(this.io.stdout, `  ${line}`);
    const failure = firstFailure(result);
    if (failure !== undefined) throw Object.assign(new Error(failure.message), { code: failure.code });
    const left = visibleChanges(result.after).length - blockedChanges(result.after).length;
    writeLine(this.io.stdout, `${this.prefix()}: ${left === 0 ? "in sync" : `${left} ${left === 1 ? "change" : "changes"} left for the next round`}`);
    this.lastReported = "";
    return {};
  }

  private record(plan: Plan): void {
    this.metrics.driftedResources.set(visibleChanges(plan).length);
    this.metrics.blockedChanges.set(plan.summary.blocked);
  }

  /** The whole plan when it differs from the last one reported, else one line. */
  private reportPlan(plan: Plan, loaded: LoadedFiles): void {
    const changes = visibleChanges(plan);
    const key = JSON.stringify(changes.map((c) => [c.address, c.action, c.changes, c.blocked]));
    if (changes.length === 0) writeLine(this.io.stdout, `${this.prefix()}: in sync`);
    else if (key === this.lastReported) writeLine(this.io.stdout, `${this.prefix()}: ${changesPending(changes.length)} (unchanged since the last round)`);
    else {
      writeLine(this.io.stdout, `${this.prefix()}: ${changesPending(changes.length)}${this.ctx.apply ? " (all blocked)" : "; run with --apply to make them"}`);
      this.io.stdout.write(renderPlan(plan, "text", { ...renderContext(loaded, this.io), color: false }));
    }
    this.lastReported = key;
  }

  private prefix(): string {
    return `[${new Date().toISOString()}] round ${this.roundNumber}`;
  }
}

function classify(error: unknown): unknown {
  if (error instanceof TerminalError) return error;
  if (error instanceof LoadError || (hasCode(error) && TERMINAL_CODES.has(error.code))) return new TerminalError(messageOf(error), { cause: error });
  return error;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ");
}

/** "1 change pending", "3 changes pending". */
function changesPending(n: number): string {
  return `${n} ${n === 1 ? "change" : "changes"} pending`;
}
