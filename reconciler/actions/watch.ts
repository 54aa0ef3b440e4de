/**
 * `cubeform watch`: the GitOps loop. Each round re-reads the file, observes and plans; with --apply it carries the plan out, else reports the drift.
 * A stop request lets the step under way finish, then ends the loop with exit 0.
 */
import { isOverBudget, policyBlocks, type ApplyResult, type Plan, type ResourceChange, type StepOutcome } from "../../engine/index.js";
import type { Connection } from "../session/connect.js";
import type { StepWaits } from "../arguments/connect.js";
import { CliError, formatProblem, hasCode, LoadError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import { LoadCache, shortCommit, type RepoLoaded, type RepoLoader, STDIN, type LoadedFiles } from "../../desired/index.js";
import { loadFleetForCli } from "../hints.js";
import { WatchHealth } from "../metrics/health.js";
import { RolloutsUnderWay } from "../metrics/rollouts.js";
import { serveMetrics, type Health, type MetricsServer } from "../metrics/server.js";
import { WatchStatusRecorder, type WatchStatus } from "../metrics/status.js";
import { readStatusAuthFile, statusAuth } from "../metrics/status-auth.js";
import { pageHeaders, renderPage } from "../status-page/page.js";
import { notifyCounters, watchMetrics, type WatchMetrics } from "../metrics/watch-metrics.js";
import { renderPlan } from "../render/index.js";
import { blockedChanges, summaryLine, visibleChanges } from "../render/values.js";
import { refusedLines, withoutRefusedChanges } from "../session/policy.js";
import { applyPlan, applySummaryLines, firstFailure } from "../watch/apply-plan.js";
import { Backoff } from "../watch/backoff.js";
import { formatDuration } from "../../system/time.js";
import { startListener, type Listener, type PushOptions } from "../watch/listener.js";
import { runLoop, TerminalError, type Result } from "../watch/loop.js";
import { Wake } from "../watch/wake.js";
import { WatchEvents, type RoundEnd, type RoundTrigger, type WatchObserver } from "../watch/events.js";
import { WebhookSecrets } from "../watch/webhook-secrets.js";
import { commitStatusObserver, type CommitStatusSettings } from "../commit-status/index.js";
import type { FeatureStatus } from "../metrics/feature-status.js";
import { commitStatusRecorder, notificationRecorder } from "../metrics/feature-recorders.js";
import { readRegularTextAsync } from "../../system/files.js";
import { renderContext } from "../render/context.js";
import { computePlan, withConnection, withSpaceLock, type PlanFlags, type PlanMemo, type SessionContext } from "../session/session.js";
import { reportWarnings } from "../report/preflight.js";
import { rememberLoadedSecrets } from "../redact.js";
import { Notifier, NotifyObserver, notifySource, type NotifySettings } from "../notify/index.js";

export interface WatchContext extends PlanFlags, Omit<SessionContext, "format">, StepWaits {
  apply: boolean;
  intervalMs: number;
  once: boolean;
  /** undefined: no HTTP endpoints. */
  metricsPort?: number;
  metricsHost: string;
  /** Stops the loop (SIGTERM/SIGINT in the CLI). */
  signal: AbortSignal;
  /** `--listen`: where to receive the service's webhook deliveries; a relevant event starts a round at once. */
  listen?: { host: string; port: number };
  /** With --apply, how long a round waits for another run's lock of the space (default: one interval). */
  lockTimeoutMs?: number;
  /** --push-secret-file: the secret of the forge's push webhook (with --repo and --listen). */
  pushSecretFile?: string;
  /** --notify: where events go (urls checked, secret read). */
  notify?: NotifySettings | undefined;
  /** --status-provider: commit statuses on the forge of --repo. */
  commitStatus?: CommitStatusSettings;
  /** --status-auth-file: the credentials the status page and /status ask for (status-auth.ts). */
  statusAuthFile?: string;
}

export async function runWatch(ctx: WatchContext, io: CliIo): Promise<number> {
  if (ctx.repo === undefined && ctx.files.includes(STDIN))
    throw new CliError(
      "invalid_option",
      "watch re-reads the file every round, so it cannot read it from standard input (-f -): name a file or directory",
    );
  const metrics = watchMetrics();
  const health = new WatchHealth(ctx.intervalMs, stuckAfterMs(ctx));
  const status = new WatchStatusRecorder(sourceOf(ctx), ctx.apply);
  const server = ctx.metricsPort === undefined ? undefined : await startServer(ctx, { metrics, health, status }, io);
  const loadCache = new LoadCache();
  const events = new WatchEvents([status.observer, ...observersFor(ctx, io, metrics, status.features)], (error) =>
    writeLine(io.stderr, `an observer of the loop failed: ${messageOf(error)}`),
  );
  try {
    const fileSpaceId = await fileSpaceOf(ctx, io, loadCache);
    return await withConnection({ ...ctx, format: "text", stopSendsOnSignal: true, repeatedReads: true, fileSpaceId }, io, async (conn) => {
      status.connected(conn.spaceId, { pacer: conn.pacer, rollouts: conn.rollouts });
      const watcher = new Watcher(ctx, io, conn, { metrics, health, status, events }, loadCache);
      const wake = new Wake();
      const secrets = new WebhookSecrets();
      const listener = ctx.listen === undefined ? undefined : await listen(ctx, ctx.listen, wake, await watcher.loadSecrets(secrets), io);
      const what = ctx.apply ? " (applying changes)" : " (reporting drift; --apply to repair it)";
      const when = ctx.once ? "once" : `every ${formatDuration(ctx.intervalMs)}`;
      writeLine(io.stderr, `watching ${describeSource(ctx)} ${when}${what}`);
      const { lastRoundFailed } = await runLoop({
        wait: (ms, signal) => wake.wait(ms, signal),
        reconcile: (trigger) => watcher.round(trigger, listener === undefined ? undefined : secrets),
        intervalMs: ctx.intervalMs,
        // A failed round is retried sooner than the interval, never later: the loop is back within one interval of the outage's end.
        backoff: new Backoff({ initialMs: Math.min(1000, ctx.intervalMs), maxMs: ctx.intervalMs }),
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
    await events.close();
    await server?.close();
  }
}

/**
 * The file's `space:` wins over the environment's: the files are read before connecting, so the rounds plan the space they name. A file that
 * does not load yet connects as the environment says; its rounds report why. (--repo: the space of a commit is known only after a fetch.)
 */
async function fileSpaceOf(ctx: WatchContext, io: CliIo, cache: LoadCache): Promise<string | undefined> {
  if (ctx.repo !== undefined) return undefined;
  const loaded = await loadFleetForCli({ files: ctx.files, cwd: ctx.cwd, env: io.env, cache }).catch(() => undefined);
  return loaded?.desired.spaceId;
}

/** The webhook receiver: deliveries are verified against the secretFiles of the file's endpoints (webhook-secrets.ts). */
async function listen(
  ctx: WatchContext,
  address: { host: string; port: number },
  wake: Wake,
  secrets: WebhookSecrets,
  io: CliIo,
): Promise<Listener> {
  const listener = await startListener({
    ...address,
    secrets: () => secrets.current(),
    ...(ctx.repo !== undefined ? { push: pushOptions(ctx, ctx.repo, wake, io) } : {}),
    onEvent: (event, deliveryId) => {
      writeLine(
        io.stderr,
        escapeText(`[${new Date().toISOString()}] event ${event}${deliveryId ? ` (${deliveryId})` : ""}: starting a round`),
      );
      wake.fire("service-event");
    },
    onRefused: (reason) => writeLine(io.stderr, escapeText(`[${new Date().toISOString()}] ${reason}`)),
  });
  writeLine(io.stderr, `listening for webhook deliveries on ${listener.url} (signatures checked against the webhooks' secretFiles)`);
  return listener;
}

function pushOptions(ctx: WatchContext, repo: RepoLoader, wake: Wake, io: CliIo): PushOptions {
  const file = ctx.pushSecretFile;
  return {
    secret: async () =>
      file === undefined
        ? undefined
        : (await readRegularTextAsync(file, { maxBytes: 4096, what: "a push secret file" }).catch(() => "")).trim() || undefined,
    ...(repo.options.source.ref !== undefined ? { ref: repo.options.source.ref } : {}),
    onPush: (forge, ref) => {
      writeLine(io.stderr, escapeText(`[${new Date().toISOString()}] ${forge} push to ${ref}: starting a round`));
      wake.fire("push");
    },
  };
}

function sourceOf(ctx: WatchContext): ConstructorParameters<typeof WatchStatusRecorder>[0] {
  if (ctx.repo === undefined) return { kind: "files", repo: null, ref: null, path: null, files: ctx.files };
  const { source, path } = ctx.repo.options;
  return { kind: "git", repo: source.url, ref: source.ref ?? "HEAD", path, files: [] };
}

function describeSource(ctx: WatchContext): string {
  if (ctx.repo === undefined) return ctx.files.join(", ");
  return `${ctx.repo.options.source.url} (${ctx.repo.options.source.refLabel}, ${ctx.repo.options.path})`;
}

/** A round longer than this is stuck: every wait of a round's steps, plus pacing, plus slack. */
function stuckAfterMs(ctx: WatchContext): number {
  return Math.max(3 * ctx.intervalMs, 2 * ctx.waitTimeoutMs + 10 * 60_000);
}

/** Who hears of each round besides the log, metrics and /status (commit statuses, notifications, the page's history); what they send shows on /status. */
function observersFor(ctx: WatchContext, io: CliIo, metrics: WatchMetrics, features: FeatureStatus): WatchObserver[] {
  const observers: WatchObserver[] = [];
  if (ctx.notify) {
    features.enable("notifications");
    const notifier = new Notifier(ctx.notify, io, notifyCounters(metrics), { settled: notificationRecorder(features) });
    observers.push(new NotifyObserver(notifier, notifySource(ctx)));
  }
  if (ctx.commitStatus) {
    features.enable("commitStatuses");
    observers.push(
      commitStatusObserver(ctx.commitStatus, io, {
        counter: metrics.commitStatuses,
        fetchedRevision: () => ctx.repo?.lastCommit,
        sent: commitStatusRecorder(features),
      }),
    );
  }
  return observers;
}

/** What a round reports to: the Prometheus metrics, the probes, /status and the loop's observers. */
interface Reporting {
  metrics: WatchMetrics;
  health: WatchHealth;
  status: WatchStatusRecorder;
  events: WatchEvents;
}

async function startServer(ctx: WatchContext, { metrics, health, status }: Omit<Reporting, "events">, io: CliIo): Promise<MetricsServer> {
  const redact = (text: string): string => io.secrets?.redact(text) ?? text;
  const snapshot = (): WatchStatus => status.snapshot({ ready: health.ready().ok, live: health.live().ok }, redact);
  const auth = ctx.statusAuthFile === undefined ? undefined : statusAuth(await readStatusAuthFile(ctx.statusAuthFile), ctx.statusAuthFile);
  const server = await serveMetrics({
    host: ctx.metricsHost,
    port: ctx.metricsPort ?? 0,
    registry: metrics.registry,
    health: () => redactedHealth(health.ready(), io),
    live: () => health.live(),
    status: snapshot,
    page: () => ({ html: renderPage(snapshot()), headers: pageHeaders() }),
    ...(auth !== undefined ? { auth } : {}),
  });
  writeLine(
    io.stderr,
    `metrics: ${server.url}/metrics (health: ${server.url}/healthz, ${server.url}/livez, ${server.url}/readyz; state: ${server.url}/status)`,
  );
  writeLine(io.stderr, `status page: ${server.url}/${auth !== undefined ? " (credentials from --status-auth-file)" : ""}`);
  return server;
}

/** /readyz tells why a round failed: an API error that echoed a password is shown redacted. */
const redactedHealth = (health: Health, io: CliIo): Health => ({ ...health, reason: io.secrets?.redact(health.reason) ?? health.reason });

class Watcher {
  private roundNumber = 0;
  private lastReported = "";

  private readonly metrics: WatchMetrics;
  private readonly health: WatchHealth;
  private readonly status: WatchStatusRecorder;
  private readonly events: WatchEvents;
  /** What this round has seen so far, for its RoundEnd event. */
  private roundFacts: {
    drift: readonly ResourceChange[];
    repaired: ResourceChange[];
    outcomes?: readonly StepOutcome[];
    plan?: Plan;
    mutations: number;
    held?: RoundEnd["held"];
  } = { drift: [], repaired: [], mutations: 0 };

  constructor(
    private readonly ctx: WatchContext,
    private readonly io: CliIo,
    private readonly conn: Connection,
    reporting: Reporting,
    /** Rounds re-read the files, but an unchanged file is not parsed and checked again. */
    private readonly loadCache: LoadCache,
  ) {
    this.planMemo = { keepPlansWithSteps: !ctx.apply };
    ({ metrics: this.metrics, health: this.health, status: this.status, events: this.events } = reporting);
    this.rollouts = new RolloutsUnderWay(this.metrics.rolloutInProgress);
    this.health.addDetail(() => this.rollouts.detail());
    this.health.longRoundWhile(() => this.rollouts.active());
  }

  private succeeded = false;
  /** The secretFiles of the webhook endpoints in the file as last loaded (undefined: not loaded yet). */
  private webhookSecretPaths: string[] | undefined;
  /** An in-sync plan is answered again while the file and the space are unchanged (computePlan). */
  private readonly planMemo: PlanMemo;
  /** The rollouts of the apply under way: /readyz detail and cubeform_rollout_in_progress. */
  private readonly rollouts: RolloutsUnderWay;

  /** The last desired state that loaded (--repo: the last good commit): what rounds enforce while the source fails. */
  private lastGood: LoadedFiles | undefined;
  private roundRevision: string | undefined;
  /** The source error of this round when nothing good was there to enforce instead: the round ends there. */
  private sourceFailure: unknown;
  /** The last source failure written to the log, so an unchanged one is one line per round. */
  private lastSourceMessage = "";
  /** The same failure as observers get it: with its first FILE:LINE:COL, redacted. */
  private lastSourceError = "";

  /** The secrets of the file's webhook endpoints, before the first round (a file that does not load yet, or a repository not fetched yet: none). */
  async loadSecrets(secrets: WebhookSecrets): Promise<WebhookSecrets> {
    if (this.ctx.repo !== undefined) return secrets;
    const loaded = await loadFleetForCli({ files: this.ctx.files, cwd: this.ctx.cwd, env: this.io.env, cache: this.loadCache }).catch(
      () => undefined,
    );
    await secrets.refresh(loaded?.desired.webhooks?.map((webhook) => webhook.secretPath) ?? []);
    return secrets;
  }

  /** One round; then `secrets` (watch --listen) are read again, from the endpoints of the file as this round loaded it. */
  async round(trigger: RoundTrigger, secrets?: WebhookSecrets): Promise<Result> {
    try {
      return await this.reconcileRound(trigger);
    } finally {
      await secrets?.refresh(this.webhookSecretPaths);
    }
  }

  private async reconcileRound(trigger: RoundTrigger): Promise<Result> {
    this.roundNumber++;
    this.roundRevision = undefined;
    this.sourceFailure = undefined;
    this.roundFacts = { drift: [], repaired: [], mutations: 0 };
    this.conn.readMemo?.nextRound();
    this.health.roundStarted();
    this.status.roundStarted(this.roundNumber);
    const start = { round: this.roundNumber, trigger, startedAt: Date.now(), spaceId: this.conn.spaceId };
    this.events.roundStarted(start);
    try {
      const result = await this.reconcile();
      this.endRound(start, "succeeded");
      this.health.roundSucceeded();
      this.status.roundEnded("succeeded");
      this.succeeded = true;
      this.metrics.lastSuccess.set(this.health.lastSuccessSeconds());
      if (this.roundRevision !== undefined && this.ctx.apply) {
        this.metrics.appliedRevision.set({ revision: this.roundRevision });
        this.status.applied(this.roundRevision);
      }
      return result;
    } catch (error) {
      // A stop request cut the round short: the client sent nothing new; not a failure.
      if (this.ctx.signal.aborted && hasCode(error) && error.code === "stopped") {
        this.endRound(start, "stopped");
        return {};
      }
      this.metrics.roundErrors.inc();
      this.endRound(start, error === this.sourceFailure ? "source-failed" : "failed", error);
      if (error === this.sourceFailure) {
        // The source failed with nothing good loaded to enforce: not the API's doing, so readiness stands (/status says why).
        this.health.roundEndedAtSource();
        this.status.roundEnded("source-failed");
      } else {
        this.health.roundFailed(describeFailure(error));
        this.status.roundEnded("failed", describeFailure(error));
      }
      throw classify(error);
    } finally {
      this.metrics.rounds.inc();
    }
  }

  private endRound(
    start: { round: number; trigger: RoundTrigger; startedAt: number },
    outcome: RoundEnd["outcome"],
    error?: unknown,
  ): void {
    const facts = this.roundFacts;
    const failure =
      error === undefined
        ? {}
        : {
            error: {
              code: hasCode(error) ? error.code : undefined,
              message: this.io.secrets?.redact(describeFailure(error)) ?? describeFailure(error),
            },
          };
    const converged = outcome === "succeeded" && facts.plan !== undefined && visibleChanges(facts.plan).length === 0;
    this.events.roundEnded({
      ...start,
      finishedAt: Date.now(),
      outcome,
      revision: this.roundRevision,
      ...failure,
      drift: facts.drift,
      repaired: facts.repaired,
      ...(facts.outcomes ? { outcomes: facts.outcomes } : {}),
      plan: facts.plan,
      applying: this.ctx.apply,
      mutations: facts.mutations,
      ...(facts.held ? { held: facts.held } : {}),
      converged,
    });
  }

  /** A rejected key (401/403) before any round succeeded ends watch at once. */
  fatal(error: unknown): Error | undefined {
    const cause = error instanceof TerminalError ? error.cause : error;
    if (this.succeeded || !hasCode(cause) || (cause.code !== "unauthorized" && cause.code !== "forbidden")) return undefined;
    return new CliError(cause.code, `the API refused the key: ${messageOf(cause)}`);
  }

  reportFailure(error: unknown, retryInMs: number): void {
    if (error instanceof TerminalError && error.cause instanceof LoadError) {
      for (const problem of error.cause.problems) writeLine(this.io.stderr, escapeText(formatProblem(problem)));
    }
    const when = error instanceof TerminalError ? `next round in ${formatDuration(retryInMs)}` : `retrying in ${formatDuration(retryInMs)}`;
    writeLine(this.io.stderr, `${this.prefix()} failed: ${messageOf(error)}${this.ctx.once ? "" : `; ${when}`}`);
  }

  private reconcile(): Promise<Result> {
    if (!this.ctx.apply) return this.planAndApply();
    // One writer per space: a manual apply beside this loop waits for the round, or the round for it.
    const lockTimeoutMs = this.ctx.lockTimeoutMs ?? this.ctx.intervalMs;
    return withSpaceLock(this.conn, "watch --apply", { cwd: this.ctx.cwd, lockTimeoutMs }, this.io, this.io.stderr, () =>
      this.planAndApply(),
    );
  }

  private async planAndApply(): Promise<Result> {
    const loaded = await this.loadSource();
    this.webhookSecretPaths = (loaded.desired.webhooks ?? []).map((webhook) => webhook.secretPath);
    rememberLoadedSecrets(this.io, loaded);
    reportWarnings(loaded, this.io);
    const { plan: planned } = await computePlan(
      this.conn,
      loaded.desired,
      this.ctx,
      this.ctx.rateLimit,
      undefined,
      loaded,
      this.io.env,
      this.planMemo,
    );
    // A mandatory policy violation refuses its changes and what depends on them before any mutation, as apply does; the rest is applied.
    const plan = this.ctx.apply ? withoutRefusedChanges(planned) : planned;
    this.record(plan);
    this.roundFacts.drift = visibleChanges(planned);
    this.roundFacts.plan = plan;
    // Over the file's budget, every change waits (the plan printed says why), as apply refuses it.
    const refusedByPolicy = planned.steps.length > 0 && plan.steps.length === 0;
    if (this.ctx.apply && planned.steps.length > 0)
      this.roundFacts.held = isOverBudget(plan.cost) ? "budget" : refusedByPolicy ? "policy" : undefined;
    if (!this.ctx.apply || plan.steps.length === 0 || this.ctx.signal.aborted || isOverBudget(plan.cost)) {
      if (refusedByPolicy)
        writeLine(
          this.io.stdout,
          `${this.prefix()}: not applied: ${policyBlocks(plan).length} mandatory policy violations (listed below); nothing was sent`,
        );
      this.reportPlan(plan, loaded);
      return {};
    }
    for (const line of refusedLines(plan)) writeLine(this.io.stdout, `${this.prefix()}: ${line}`);
    writeLine(this.io.stdout, `${this.prefix()}: applying ${plan.steps.length} steps (${summaryLine(plan)})`);
    const result = await applyPlan(this.conn, plan, loaded.desired, {
      env: this.io.env,
      out: this.io.stdout,
      shouldStop: () => this.ctx.signal.aborted,
      waitTimeoutMs: this.ctx.waitTimeoutMs,
      pollIntervalMs: this.ctx.pollIntervalMs,
      // Rounds run one at a time and a plan's batches one after another: one rollout per group at a time, reported while under way.
      onRolloutProgress: (batch, phase) => {
        this.rollouts.progress(batch, phase);
        this.health.roundProgressed();
      },
    }).finally(() => this.rollouts.roundEnded());
    return this.afterApply(result);
  }

  /**
   * The desired state this round enforces: the source as it is now or, when it cannot be fetched or does not load, the last one that loaded
   * (as Flux keeps applying its last artifact): a broken commit or a git outage never stops the repair of out-of-band changes.
   */
  private async loadSource(): Promise<LoadedFiles> {
    try {
      const loaded =
        this.ctx.repo !== undefined
          ? await this.loadRepo(this.ctx.repo)
          : await loadFleetForCli({ files: this.ctx.files, cwd: this.ctx.cwd, env: this.io.env, cache: this.loadCache });
      this.lastGood = loaded;
      this.metrics.sourceFailing.set(0);
      this.status.sourceLoaded(this.roundRevision);
      this.lastSourceMessage = "";
      this.lastSourceError = "";
      return loaded;
    } catch (error) {
      if (this.ctx.signal.aborted) throw error;
      this.metrics.sourceFailing.set(1);
      this.status.sourceFailed(describeFailure(error));
      if (this.lastGood === undefined) {
        this.sourceFailure = error;
        throw error;
      }
      this.reportSourceFailure(error, this.lastGood);
      this.lastSourceError = this.io.secrets?.redact(describeFailure(error)) ?? describeFailure(error);
      this.roundRevision = revisionOf(this.lastGood);
      return this.lastGood;
    } finally {
      this.status.enforcing(this.roundRevision);
      this.events.revisionLoaded({ round: this.roundNumber, revision: this.roundRevision, ...this.brokenHead() });
    }
  }

  /**
   * Why the source does not load when the round enforces the last good load instead, and (--repo) the fetched commit that does not;
   * files have no commit: only the error.
   */
  private brokenHead(): { brokenRevision?: string; sourceError?: string } {
    if (this.lastSourceError === "") return {};
    if (this.ctx.repo === undefined) return { sourceError: this.lastSourceError };
    const fetched = this.ctx.repo.lastCommit;
    if (fetched === undefined || fetched === this.roundRevision) return {};
    return { brokenRevision: fetched, sourceError: this.lastSourceError };
  }

  /** Fetch and load the ref's commit. */
  private async loadRepo(repo: RepoLoader): Promise<RepoLoaded> {
    try {
      const loaded = await loadFleetForCli({ repo });
      this.roundRevision = loaded.revision.revision;
      return loaded;
    } finally {
      const commit = repo.lastCommit;
      this.status.fetched(commit);
      if (commit !== undefined) this.metrics.sourceRevision.set({ revision: commit });
      this.health.setDetail(
        revisionDetail(commit, this.roundRevision ?? (this.lastGood === undefined ? undefined : revisionOf(this.lastGood))),
      );
    }
  }

  /** One line a round while the source fails, with a file's problems when the failure is new. */
  private reportSourceFailure(error: unknown, lastGood: LoadedFiles): void {
    const message = messageOf(error);
    if (message !== this.lastSourceMessage && error instanceof LoadError)
      for (const problem of error.problems) writeLine(this.io.stderr, formatProblem(problem));
    const revision = revisionOf(lastGood);
    const enforced = revision !== undefined ? `the last good commit ${shortCommit(revision)}` : "the files as they last loaded";
    writeLine(
      this.io.stderr,
      `${this.prefix()}: the source failed: ${message}${message === this.lastSourceMessage ? " (unchanged)" : ""}; reconciling ${enforced}`,
    );
    this.lastSourceMessage = message;
  }

  private afterApply(result: ApplyResult): Result {
    this.metrics.mutations.inc(result.mutationsSent);
    this.roundFacts.mutations = result.mutationsSent;
    this.roundFacts.outcomes = result.outcomes;
    this.roundFacts.plan = result.after;
    this.roundFacts.repaired = repairedChanges(this.roundFacts.drift, result);
    this.record(result.after);
    for (const line of applySummaryLines(result)) writeLine(this.io.stdout, `  ${line}`);
    const failure = firstFailure(result);
    if (failure !== undefined) throw Object.assign(new Error(failure.message), { code: failure.code, terminal: failure.terminal });
    const left = visibleChanges(result.after).length - blockedChanges(result.after).length;
    writeLine(
      this.io.stdout,
      `${this.prefix()}: ${left === 0 ? "in sync" : `${left} ${left === 1 ? "change" : "changes"} left for the next round`}`,
    );
    this.lastReported = "";
    return {};
  }

  private record(plan: Plan): void {
    this.metrics.driftedResources.set(visibleChanges(plan).length);
    this.metrics.blockedChanges.set(plan.summary.blocked);
    this.status.planned(visibleChanges(plan).length, plan.summary.blocked);
  }

  /** The whole plan when it differs from the last one reported, else one line. */
  private reportPlan(plan: Plan, loaded: LoadedFiles): void {
    const changes = visibleChanges(plan);
    const key = JSON.stringify(changes.map((c) => [c.address, c.action, c.changes, c.blocked]));
    if (changes.length === 0) writeLine(this.io.stdout, `${this.prefix()}: in sync`);
    else if (key === this.lastReported)
      writeLine(this.io.stdout, `${this.prefix()}: ${changesPending(changes.length)} (unchanged since the last round)`);
    else {
      writeLine(
        this.io.stdout,
        `${this.prefix()}: ${changesPending(changes.length)}${this.ctx.apply ? " (all blocked)" : "; run with --apply to make them"}`,
      );
      this.io.stdout.write(renderPlan(plan, "text", { ...renderContext(loaded, this.io), color: false }));
    }
    this.lastReported = key;
  }

  private prefix(): string {
    const commit = this.roundRevision ?? this.ctx.repo?.lastCommit;
    return `[${new Date().toISOString()}] round ${this.roundNumber}${commit !== undefined ? ` (commit ${shortCommit(commit)})` : ""}`;
  }
}

function revisionDetail(fetched: string | undefined, lastGood: string | undefined): string {
  return `revision ${fetched ?? "none fetched yet"}${lastGood !== undefined && lastGood !== fetched ? ` (last good revision ${lastGood} stays applied)` : ""}`;
}

/** The commit a load of --repo was made at; undefined for files. */
function revisionOf(loaded: LoadedFiles): string | undefined {
  return (loaded as Partial<RepoLoaded>).revision?.revision;
}

/** A round's failure in one line; a file that does not load with its first FILE:LINE:COL. */
function describeFailure(error: unknown): string {
  return error instanceof LoadError && error.problems[0] ? `${messageOf(error)}: ${formatProblem(error.problems[0])}` : messageOf(error);
}

/** The changes of the drift whose steps all went through (none failed or was skipped). */
function repairedChanges(drift: readonly ResourceChange[], result: ApplyResult): ResourceChange[] {
  const unfinished = new Set(result.outcomes.filter((o) => o.status !== "done").map((o) => o.step.address));
  const blocked = new Set(result.blocked.map((change) => change.address));
  return drift.filter((change) => !unfinished.has(change.address) && !blocked.has(change.address) && change.blocked === undefined);
}

function classify(error: unknown): unknown {
  if (error instanceof TerminalError) return error;
  // Decided where the error was raised (its `terminal`): a bad file, a 4xx, a refused commit; not a network failure.
  if ((error as { terminal?: unknown } | undefined)?.terminal === true) return new TerminalError(messageOf(error), { cause: error });
  return error;
}

function messageOf(error: unknown): string {
  return escapeText((error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " "));
}

function changesPending(n: number): string {
  return `${n} ${n === 1 ? "change" : "changes"} pending`;
}
