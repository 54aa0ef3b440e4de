/**
 * The steps plan, apply and drift share: load the file (before any connection), connect,
 * observe and diff. The connection is closed whatever happens.
 */
import {
  DEFAULT_ROLLOUT_TIMING,
  diff,
  diffAsRead,
  flatSteps,
  fleetAfter,
  fleetBefore,
  observe,
  planCost,
  type DesiredState,
  type DiffContext,
  type ObservedState,
  type ObserveOptions,
  type Plan,
  type PlanCost,
  type PlanOptions,
} from "../../engine/index.js";
import type { CubeApi } from "../../client/api.js";
import { MAX_DEFAULT_CONNECTIONS } from "../../client/light.js";
import type { Pricing } from "../../schema/api.js";
import { escapeText } from "../render/escape.js";
import { connect, projectDir, sayWhereTheKeyIsFrom, sayWhereTheSpaceIsFrom, type Connection, type RateLimit } from "./connect.js";
import { checkCatalog, type CatalogSource } from "../report/catalog-check.js";
import { CliError, LoadError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { checkTargets, reportWarnings } from "../report/preflight.js";
import { acquireSpaceLock, describeOwner } from "./space-lock.js";
import { type LoadedFiles, DiskLoadCache, type RepoLoader } from "../../desired/index.js";
import type { Format } from "../arguments/options.js";
import type { SourceRevision } from "../../engine/types.js";
import { loadSource, reportProblems } from "./load-source.js";
import { rememberLoadedSecrets } from "../redact.js";
import { checkPolicies, hasPolicies, policyRules, type PolicyFlags } from "./policy.js";

export interface SessionContext {
  /** What -f named: files, directories of them, or "-" for standard input. */
  files: string[];
  cwd: string;
  emulator: boolean;
  rateLimit: RateLimit;
  format: Format;
  /** API requests in flight at once (--parallelism); the client's default when absent. */
  parallelism?: number | undefined;
  /** --repo: the desired state at the ref's commit instead of `files`. */
  repo?: RepoLoader;
  /** --state-dir: where the journal and secret digests are (connect.ts resolveStateDir). */
  stateDir?: string | undefined;
}

export interface PlanFlags {
  targets: string[];
  prune: boolean;
  allowReplace: boolean;
  /** With a budget, a cost that cannot be known (prices unreadable or implausible) blocks unless this is set. */
  allowUnknownCost?: boolean;
  /** How long the prices (GET /pricing) may take, in ms; DEFAULT_PRICING_TIMEOUT_MS when absent. */
  pricingTimeout?: number;
  /** Policy files and overrides (reconciler/session/policy.ts); the fleet file's own rules are checked without them. */
  policy?: PolicyFlags;
}

/** How many cubes are read at once: two reads each, so the client's connections are all in use. */
export const observeConcurrency = (conn: Connection): number => Math.max(1, Math.floor(conn.parallelism / 2));

/** The client's CPU for one read of a plan (2 cores, 10,000 cubes: ~3 s for 20,100 reads). */
const READ_CPU_MS = 0.2;

/**
 * With no --parallelism, cubes read at once for the round trip a plan measures: ~`round trip ÷ CPU per read` reads in flight keep
 * the connections busy without the client waiting on its own CPU; never below the default (loopback stays as it is), at most 256.
 */
const widenedFor =
  (conn: Connection) =>
  (roundTripMs: number): number =>
    Math.min(MAX_DEFAULT_CONNECTIONS / 2, Math.max(observeConcurrency(conn), Math.round(roundTripMs / READ_CPU_MS / 2)));

/**
 * Loads the files; a problem or an unknown --target ends the command before it connects.
 * `targetedLoad` (plan only): untargeted cubes are read for their identity, not validated.
 */
export async function loadForSession(
  ctx: SessionContext & { targets?: string[]; policy?: PolicyFlags },
  io: CliIo,
  options: { targetedLoad?: boolean } = {},
): Promise<LoadedFiles> {
  let loaded: LoadedFiles;
  const targets = options.targetedLoad === true && ctx.targets !== undefined && ctx.targets.length > 0 ? { targets: ctx.targets } : {};
  try {
    // A checkout (--repo) uses the disk cache too: an entry's files are read again only inside the checkout.
    loaded = await loadSource(ctx, io, { ...targets, ...diskCacheOf(io) });
    // Policy files, and a fleet file that redefines one of their rules, are checked before anything connects.
    if (hasPolicies(ctx.policy, loaded.desired)) policyRules(ctx.policy, loaded.desired, loaded);
  } catch (e) {
    if (e instanceof LoadError) reportProblems(e, ctx.format, io);
    throw e;
  }
  rememberLoadedSecrets(io, loaded);
  checkTargets(loaded.desired, ctx.targets ?? [], loaded.file);
  reportWarnings(loaded, io, ctx.format);
  return loaded;
}

function diskCacheOf(io: CliIo): { diskCache?: DiskLoadCache } {
  const diskCache = DiskLoadCache.forRun(io.env, io.build, io.stderr);
  return diskCache ? { diskCache } : {};
}

export async function withConnection<T>(
  ctx: SessionContext & { stopSendsOnSignal?: boolean; repeatedReads?: boolean; fileSpaceId?: string | undefined },
  io: CliIo,
  body: (conn: Connection) => Promise<T>,
): Promise<T> {
  const conn = await connect(
    {
      ...(ctx.fileSpaceId === undefined ? {} : { fileSpaceId: ctx.fileSpaceId }),
      emulator: ctx.emulator,
      rateLimit: ctx.rateLimit,
      cwd: ctx.cwd,
      ...(ctx.repo === undefined ? { dir: projectDir(ctx.files, ctx.cwd) } : {}),
      ...(ctx.stateDir === undefined ? {} : { stateDir: ctx.stateDir }),
      stopSendsOnSignal: ctx.stopSendsOnSignal === true,
      repeatedReads: ctx.repeatedReads === true,
      ...(ctx.parallelism === undefined ? {} : { parallelism: ctx.parallelism }),
    },
    io,
  );
  try {
    return await body(conn);
  } catch (e) {
    throw sayWhereTheKeyIsFrom(sayWhereTheSpaceIsFrom(e, conn.spaceId, conn.spaceFrom), conn.keyFrom);
  } finally {
    await conn.close();
  }
}

export interface LockFlags {
  /** How long to wait for another run's lock of the space. */
  lockTimeoutMs: number;
}

/** Runs `body` holding this machine's lock of the space, waiting for another run's up to the timeout. */
export async function withSpaceLock<T>(
  conn: Connection,
  command: string,
  flags: LockFlags & { cwd: string },
  io: CliIo,
  progress: NodeJS.WritableStream,
  body: () => Promise<T>,
): Promise<T> {
  const lock = await acquireSpaceLock({
    origin: conn.lockScope,
    spaceId: conn.spaceId,
    command,
    cwd: flags.cwd,
    timeoutMs: flags.lockTimeoutMs,
    ...(io.signal ? { signal: io.signal } : {}),
    onWait: (owner) =>
      writeLine(
        progress,
        escapeText(
          `Waiting for the lock of space ${conn.spaceId}: ${owner ? `${describeOwner(owner)} holds it` : "another run holds it"} (up to ${Math.round(flags.lockTimeoutMs / 1000)} s, --lock-timeout)…`,
        ),
      ),
  });
  try {
    return await body();
  } finally {
    await lock.release();
  }
}

/** Domains whose basic-auth password in the environment differs from the one last applied. */
async function rotatedPasswords(conn: Connection, desired: DesiredState, env: Record<string, string | undefined>): Promise<Set<string>> {
  const rotated = new Set<string>();
  for (const cube of desired.cubes) {
    for (const domain of cube.domains ?? []) {
      const value = domain.basicAuthPassword ? env[domain.basicAuthPassword.env] : undefined;
      if (!value) continue;
      if (await conn.secretMemory.differs({ spaceId: conn.spaceId, cubeName: cube.name, hostname: domain.hostname }, value))
        rotated.add(`${cube.name} ${domain.hostname}`);
    }
  }
  return rotated;
}

/** The space as a plan sees it: without the cubes whose deletion this machine started (`notice` says which). */
export async function observeFor(
  conn: Connection,
  targets: string[],
  notice?: NodeJS.WritableStream,
  options: Pick<ObserveOptions, "webhooks" | "onListed" | "onRead"> = {},
): Promise<ObservedState> {
  const widens = conn.widens ? { concurrencyFor: widenedFor(conn) } : {};
  const listed = await observe(conn.client, {
    ...options,
    ...widens,
    concurrency: observeConcurrency(conn),
    webhooks: options.webhooks === true,
    ...(targets.length > 0 ? { cubeNames: targets } : {}),
  });
  const { observed, deleting } = await conn.deletions.exclude(listed);
  if (deleting.length > 0 && notice) {
    writeLine(
      notice,
      escapeText(
        `Not counted as present: ${deleting.length === 1 ? "cube" : "cubes"} ${deleting.map((n) => `"${n}"`).join(", ")}, whose deletion is under way.`,
      ),
    );
  }
  return observed;
}

/**
 * A watch's last plan, answered again while the desired state is the same object (LoadCache) and
 * the space reads back as before; one with steps only when never carried out (watch without --apply).
 */
export interface PlanMemo {
  keepPlansWithSteps: boolean;
  desired?: DesiredState;
  basis?: PlanBasis;
  plan?: Plan;
}

interface PlanBasis {
  observed: ObservedState;
  rotated: string[];
  flags: Pick<PlanFlags, "targets" | "prune" | "allowReplace">;
}

function planBasis(observed: ObservedState, rotated: ReadonlySet<string>, flags: PlanFlags): PlanBasis {
  return { observed, rotated: [...rotated], flags: { targets: flags.targets, prune: flags.prune, allowReplace: flags.allowReplace } };
}

/**
 * Everything observed but when and how many reads it took. Unchanged answers are the same
 * objects (client/read-memo.ts), so this walks little more than the list of cubes.
 */
function sameBasis(a: PlanBasis, b: PlanBasis): boolean {
  const { observedAt: _a, reads: _ra, ...before } = a.observed;
  const { observedAt: _b, reads: _rb, ...now } = b.observed;
  return sameJson(before, now) && sameJson(a.rotated, b.rotated) && sameJson(a.flags, b.flags);
}

/** Two JSON values are equal (key order aside); an object shared by both is not walked. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key) || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * Observes and diffs. With `source` (the loaded files): every --target must be declared, images
 * and regions are checked against the catalog, and the plan gets its cost from the live prices.
 */
export async function computePlan(
  conn: Connection,
  desired: DesiredState,
  /** pollIntervalMs (apply and watch, --poll-interval): how often waits poll, which the estimate of a rollout's waits counts. */
  flags: PlanFlags & { pollIntervalMs?: number },
  rateLimit: RateLimit,
  notice?: NodeJS.WritableStream,
  source?: CatalogSource & { revision?: SourceRevision; policySources?: string[] },
  env?: Record<string, string | undefined>,
  memo?: PlanMemo,
): Promise<{ plan: Plan; observed: ObservedState }> {
  if (source !== undefined) checkTargets(desired, flags.targets, source.file);
  refuseOtherSpace(conn, desired);
  const rotated = env ? await rotatedPasswords(conn, desired, env) : new Set<string>();
  const planOptions = { prune: flags.prune, allowReplace: flags.allowReplace, targets: flags.targets, rateLimit };
  const rollouts = await conn.rollouts.records(conn.spaceId);
  const rolloutTiming = { ...DEFAULT_ROLLOUT_TIMING, ...(flags.pollIntervalMs === undefined ? {} : { pollMs: flags.pollIntervalMs }) };
  const context: DiffContext = {
    passwordChanged: (cubeName, hostname) => rotated.has(`${cubeName} ${hostname}`),
    rolloutTiming,
    ...(rollouts.length > 0 ? { rollouts } : {}),
  };
  // Each cube is planned as its reads come in; a watch's plan is usually answered from its memo instead.
  const early = memo === undefined ? diffAsRead(desired, planOptions, context) : undefined;
  // Read beside the space's reads: the plan waits for no extra round trip.
  const pricing =
    source === undefined
      ? undefined
      : conn.client.getPricing({ timeoutMs: flags.pricingTimeout ?? DEFAULT_PRICING_TIMEOUT_MS }).then(
          (p) => ({ p }),
          (error: unknown) => ({ error }),
        );
  const observed = await observeFor(conn, flags.targets, notice, {
    webhooks: desired.webhooks !== undefined,
    ...(early ? { onListed: early.listed, onRead: early.read } : {}),
  });
  const basis = memo === undefined ? undefined : planBasis(observed, rotated, flags);
  const remembered =
    memo?.plan !== undefined && memo.basis !== undefined && basis !== undefined && memo.desired === desired && sameBasis(memo.basis, basis)
      ? { ...memo.plan, createdAt: observed.observedAt }
      : undefined;
  const plan = remembered ?? early?.finish(observed) ?? diff(desired, observed, planOptions, context);
  if (memo !== undefined && remembered === undefined)
    Object.assign(memo, { desired, basis, plan: plan.steps.length === 0 || memo.keepPlansWithSteps ? plan : undefined });
  withPacedEstimate(conn, plan);
  if (source?.revision !== undefined) plan.source = source.revision;
  if (source !== undefined) await checkCatalog(conn.client, plan, source);
  if (pricing !== undefined)
    plan.cost = costOf(await pricing, observed, plan, desired, flags.allowUnknownCost === true, conn.client, notice);
  if (hasPolicies(flags.policy, desired))
    checkPolicies(plan, policyRules(flags.policy, desired, source), { desired, observed, overrides: flags.policy?.overrides ?? [] });
  return { plan, observed };
}

/** A file for one space is never planned against another (a watch connects once, then re-reads the file every round). */
function refuseOtherSpace(conn: Connection, desired: DesiredState): void {
  if (desired.spaceId === undefined || desired.spaceId === conn.spaceId || conn.emulator !== undefined) return;
  throw new CliError(
    "space_mismatch",
    `the file says space: ${desired.spaceId}, but this run is connected to space ${conn.spaceId}: nothing was planned; run again (the file's space is used when a run starts)`,
  );
}

/** The real wait: other runs of this machine may have used part of the window already. */
function withPacedEstimate(conn: Connection, plan: Plan): void {
  const pacedMs = conn.pacer.estimateDurationMs(plan.summary.mutations);
  plan.summary.estimatedSeconds = Math.max(plan.summary.estimatedSeconds, Math.ceil(pacedMs / 100) / 10);
}

/**
 * A saved plan made again from its desired state and options against the space as it is now, and
 * priced with the live prices: what apply sends and checks against the budget, never the file's
 * own steps or cost.
 */
export async function planAgain(
  conn: Connection,
  desired: DesiredState,
  options: PlanOptions,
  flags: Pick<PlanFlags, "allowUnknownCost" | "pricingTimeout">,
  env: Record<string, string | undefined>,
  notice: NodeJS.WritableStream,
): Promise<{ plan: Plan; observed: ObservedState }> {
  refuseOtherSpace(conn, desired);
  const rotated = await rotatedPasswords(conn, desired, env);
  const pricing = conn.client.getPricing({ timeoutMs: flags.pricingTimeout ?? DEFAULT_PRICING_TIMEOUT_MS }).then(
    (p) => ({ p }),
    (error: unknown) => ({ error }),
  );
  const observed = await observeFor(conn, options.targets, notice, { webhooks: desired.webhooks !== undefined });
  const plan = diff(desired, observed, options, { passwordChanged: (cubeName, hostname) => rotated.has(`${cubeName} ${hostname}`) });
  withPacedEstimate(conn, plan);
  plan.cost = costOf(await pricing, observed, plan, desired, flags.allowUnknownCost === true, conn.client, notice);
  return { plan, observed };
}

const warnedUnknownCost = new WeakSet<CubeApi>();

/** A hanging GET /pricing must not hold a plan up: the cost is then unknown (and, with a budget, blocks). */
export const DEFAULT_PRICING_TIMEOUT_MS = 10_000;

/**
 * Without trustworthy prices the plan is whole but its cost unknown: said once per connection on `notice`. With a budget it
 * blocks like a plan over the budget, unless `allowUnknown` (--allow-unknown-cost).
 */
function costOf(
  read: { p: Pricing } | { error: unknown },
  observed: ObservedState,
  plan: Plan,
  { budget }: DesiredState,
  allowUnknown: boolean,
  client: CubeApi,
  notice?: NodeJS.WritableStream,
): PlanCost {
  let failure: unknown;
  if ("p" in read) {
    const before = fleetBefore(observed);
    const targets = plan.options.targets ?? [];
    try {
      return planCost(read.p, before, fleetAfter(before, flatSteps(plan.steps)), budget, targets.length > 0 ? new Set(targets) : undefined);
    } catch (e) {
      if ((e as { code?: unknown }).code !== "implausible_pricing") throw e;
      failure = e;
    }
  } else failure = read.error;
  const message = failure instanceof Error ? failure.message : String(failure);
  const unknown = "p" in read ? message : `GET /pricing failed: ${message}`;
  // Only a change that can add cost is held back: an unknown price never blocks a plan that only lowers it.
  const blocked =
    budget !== undefined && !allowUnknown && flatSteps(plan.steps).some((step) => step.op === "create-cube" || step.op === "wake");
  if (notice !== undefined && !warnedUnknownCost.has(client)) {
    warnedUnknownCost.add(client);
    const consequence =
      budget === undefined
        ? ""
        : blocked
          ? `; with a budget (${budget.monthly}/month) set, changes are refused until the prices can be read (--allow-unknown-cost to go ahead unchecked)`
          : `; the budget (${budget.monthly}/month) is not checked (--allow-unknown-cost)`;
    writeLine(notice, escapeText(`warning: the cost of this plan is unknown: ${unknown}${consequence}`));
  }
  return { unknown, ...(budget ? { budget } : {}), ...(blocked ? { blocked } : {}) };
}
