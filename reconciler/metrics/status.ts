import type { MutationPacer } from "../../client/light.js";
import type { RolloutRecord } from "../../engine/types.js";
import type { WatchObserver } from "../watch/events.js";
import { tryOr } from "../../system/files.js";
import { FeatureStatus, type FeatureLists } from "./feature-status.js";
import { RoundHistory, type ChangeList, type FleetFacts, type GroupFacts, type RepairStatus, type RoundRecord } from "./round-history.js";

/**
 * GET /status on the metrics port: the watch loop's state as JSON, for a status page or a script. Readiness (/readyz) says only whether the
 * process serves; what its source and its space are doing is here (and in /metrics and the log). The shape is versioned by `formatVersion`:
 * fields are added, never renamed or removed, within a version. Times are ISO 8601 (UTC); absent values are null, never missing.
 */
export interface WatchStatus {
  formatVersion: 1;
  /** As /readyz: the loop serves (it runs, and the last round that reached the API succeeded). */
  ready: boolean;
  /** As /livez: the loop runs and no round is stuck. */
  live: boolean;
  source: SourceStatus;
  space: SpaceStatus;
  /** The round under way or the last one; null before the first. */
  lastRound: RoundStatus | null;
  /** When this answer was made. */
  generatedAt: string;
  /** The last rounds that ended (at most 100), oldest first. */
  rounds: RoundRecord[];
  /** What the last plan found different (after the apply, with --apply: what is left), the first 100 listed. */
  drift: ChangeList;
  /** What the last round that repaired anything repaired. */
  repaired: RepairStatus;
  /** Each group of replicas of the last plan, with the batch of its rollout in flight (from the rollout journal). */
  rollouts: RolloutStatus[];
  /** The mutation window the client paces by (shared by every cubeform on this machine and key); null before the first connection. */
  pacing: PacingStatus | null;
  /** Filled in by the features that make them; null while the feature is not enabled (feature-status.ts). */
  previews: FeatureLists["previews"];
  commitStatuses: FeatureLists["commitStatuses"];
  notifications: FeatureLists["notifications"];
}

export interface RolloutStatus extends GroupFacts {
  /** The batch under way (journalled before it touches a member, cleared once healthy or put back); null when none is. */
  inFlight: { batch: number; phase: RolloutRecord["phase"]; members: string[] } | null;
}

export interface PacingStatus {
  limit: number;
  windowMs: number;
  /** Mutations sent in the last window (by any process sharing it). */
  used: number;
  left: number;
  /** Mutations waiting for a slot in this process. */
  waiting: number;
}

export interface SourceStatus {
  kind: "git" | "files";
  /** git: the repository URL, the ref as asked ("HEAD": the remote's default branch) and the path inside it; files: null. */
  repo: string | null;
  ref: string | null;
  path: string | null;
  /** files: what -f names; git: []. */
  files: string[];
  /** git: the commit the last fetch found (also when it does not load). */
  fetchedRevision: string | null;
  /** git: the last commit that loaded; the one rounds enforce while the source fails. */
  lastGoodRevision: string | null;
  /** git, with --apply: the last commit applied or found in sync. */
  appliedRevision: string | null;
  /** When the source last loaded (a file or a commit). */
  lastLoadedAt: string | null;
  /** The last round could not fetch or load the source; rounds meanwhile enforce the last good load, if any. */
  failing: boolean;
  /** Why, with FILE:LINE:COL for a file that does not load; null when not failing. */
  error: string | null;
  /** Since when it fails (the first failing round). */
  failingSince: string | null;
}

export interface SpaceStatus {
  /** The space the loop acts on. */
  id: string | null;
  /** --apply: changes are made; else drift is reported. */
  applying: boolean;
  /** The last plan had no change left (blocked ones aside: they count as not converged); null before a plan. */
  converged: boolean | null;
  /** Changes of the last plan (after the apply, with --apply), blocked ones included; null before a plan. */
  pendingChanges: number | null;
  blockedChanges: number | null;
  /** When a round last planned (and applied) without error. */
  lastReconciledAt: string | null;
  /** Why the last round failed at the API or at a step; null when it did not. */
  error: string | null;
  cubes: FleetFacts["cubes"];
  /** Monthly cost of the fleet as it runs, and after the pending changes; null when not known (costUnknown says why, when it is set). */
  cost: FleetFacts["cost"];
  costUnknown: FleetFacts["costUnknown"];
  budget: FleetFacts["budget"];
}

export interface RoundStatus {
  number: number;
  /** Why it ran: start, interval, retry, service-event, push; null when not known. */
  trigger: RoundRecord["trigger"] | null;
  startedAt: string;
  /** null while it runs. */
  finishedAt: string | null;
  /** "source-failed": the source failed and no good load was there to enforce instead. */
  outcome: "running" | "succeeded" | "failed" | "source-failed";
  /** The commit the round enforced (git). */
  revision: string | null;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** What a connection offers to /status: the pacing window and the rollout journal. */
export interface LiveSources {
  pacer?: Pick<MutationPacer, "limit" | "windowMs" | "store" | "waiting">;
  rollouts?: { records(spaceId: string): Promise<RolloutRecord[]> };
}

/** The pacing window is a file other processes write: read at most this often. */
const PACING_READ_EVERY_MS = 1000;

/** What the loop records as it goes; `snapshot()` is the body of /status. */
export class WatchStatusRecorder {
  /** The last rounds, the drift and the fleet: add it to the loop's observers (actions/watch.ts). */
  readonly history = new RoundHistory();
  /** Previews, commit statuses and notifications: their features call it (feature-status.ts). */
  readonly features = new FeatureStatus();
  private live: LiveSources = {};
  private rolloutsInFlight: RolloutRecord[] = [];
  private pacing: { at: number; status: PacingStatus } | undefined;

  private round: { number: number; startedAt: number; finishedAt?: number; outcome: RoundStatus["outcome"]; revision?: string } | undefined;
  private fetchedRevision: string | undefined;
  private lastGoodRevision: string | undefined;
  private appliedRevision: string | undefined;
  private lastLoadedAt: number | undefined;
  private sourceError: { message: string; since: number } | undefined;
  private spaceId: string | undefined;
  private plan: { pending: number; blocked: number } | undefined;
  private lastReconciledAt: number | undefined;
  private spaceError: string | undefined;

  constructor(
    private readonly source: Pick<SourceStatus, "kind" | "repo" | "ref" | "path" | "files">,
    private readonly applying: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  roundStarted(number: number): void {
    this.round = { number, startedAt: this.now(), outcome: "running" };
  }

  roundEnded(outcome: Exclude<RoundStatus["outcome"], "running">, spaceError?: string): void {
    if (this.round === undefined) return;
    this.round.finishedAt = this.now();
    this.round.outcome = outcome;
    if (outcome === "succeeded") {
      this.lastReconciledAt = this.round.finishedAt;
      this.spaceError = undefined;
    }
    if (outcome === "failed") this.spaceError = spaceError;
  }

  connected(spaceId: string, live: LiveSources = {}): void {
    this.spaceId = spaceId;
    this.live = live;
  }

  /** The observer of the loop's rounds: keeps the history, and reads the rollout journal after each round. */
  get observer(): WatchObserver {
    return {
      roundStarted: (event) => this.history.roundStarted(event),
      roundEnded: (event) => {
        this.history.roundEnded(event);
        this.readRollouts();
      },
    };
  }

  private readRollouts(): void {
    const { rollouts } = this.live;
    if (rollouts === undefined || this.spaceId === undefined) return;
    rollouts.records(this.spaceId).then(
      (records) => (this.rolloutsInFlight = records),
      () => undefined,
    );
  }

  private pacingNow(): PacingStatus | null {
    const pacer = this.live.pacer;
    if (pacer === undefined) return null;
    const now = this.now();
    if (this.pacing === undefined || now - this.pacing.at >= PACING_READ_EVERY_MS) {
      const used = tryOr(() => pacer.store.recent(now - pacer.windowMs).length, this.pacing?.status.used ?? 0);
      this.pacing = {
        at: now,
        status: { limit: pacer.limit, windowMs: pacer.windowMs, used, left: Math.max(0, pacer.limit - used), waiting: 0 },
      };
    }
    return { ...this.pacing.status, waiting: pacer.waiting };
  }

  private rolloutsNow(groups: readonly GroupFacts[]): RolloutStatus[] {
    const inFlight = new Map(this.rolloutsInFlight.map((record) => [record.group, record]));
    const statuses: RolloutStatus[] = groups.map((group) => ({ ...group, inFlight: flight(inFlight.get(group.name)) }));
    for (const record of this.rolloutsInFlight) {
      if (!groups.some((group) => group.name === record.group))
        statuses.push({
          name: record.group,
          replicas: record.members.length,
          live: 0,
          replacing: 0,
          batches: null,
          warning: null,
          inFlight: flight(record),
        });
    }
    return statuses;
  }

  fetched(revision: string | undefined): void {
    if (revision !== undefined) this.fetchedRevision = revision;
  }

  sourceLoaded(revision: string | undefined): void {
    this.lastLoadedAt = this.now();
    this.lastGoodRevision = revision ?? this.lastGoodRevision;
    this.sourceError = undefined;
  }

  sourceFailed(message: string): void {
    this.sourceError = { message, since: this.sourceError?.since ?? this.now() };
  }

  /** The commit this round enforces (the fetched one, or the last good one while the source fails). */
  enforcing(revision: string | undefined): void {
    if (this.round !== undefined && revision !== undefined) this.round.revision = revision;
  }

  planned(pending: number, blocked: number): void {
    this.plan = { pending, blocked };
  }

  applied(revision: string | undefined): void {
    if (revision !== undefined) this.appliedRevision = revision;
  }

  snapshot(probes: { ready: boolean; live: boolean }, redact: (text: string) => string): WatchStatus {
    const round = this.round;
    const history = this.history.snapshot();
    return {
      formatVersion: 1,
      ...probes,
      source: {
        ...this.source,
        fetchedRevision: this.fetchedRevision ?? null,
        lastGoodRevision: this.lastGoodRevision ?? null,
        appliedRevision: this.appliedRevision ?? null,
        lastLoadedAt: iso(this.lastLoadedAt),
        failing: this.sourceError !== undefined,
        error: this.sourceError === undefined ? null : redact(this.sourceError.message),
        failingSince: iso(this.sourceError?.since),
      },
      space: {
        id: this.spaceId ?? null,
        applying: this.applying,
        converged: this.plan === undefined ? null : this.plan.pending === 0,
        pendingChanges: this.plan?.pending ?? null,
        blockedChanges: this.plan?.blocked ?? null,
        lastReconciledAt: iso(this.lastReconciledAt),
        error: this.spaceError === undefined ? null : redact(this.spaceError),
        ...history.fleet,
        costUnknown: history.fleet.costUnknown === null ? null : redact(history.fleet.costUnknown),
      },
      lastRound:
        round === undefined
          ? null
          : {
              number: round.number,
              trigger: this.history.triggerOf(round.number),
              startedAt: iso(round.startedAt) as string,
              finishedAt: iso(round.finishedAt),
              outcome: round.outcome,
              revision: round.revision ?? null,
            },
      generatedAt: new Date(this.now()).toISOString(),
      rounds: history.rounds.map((record) => (record.error === null ? record : { ...record, error: redact(record.error) })),
      drift: history.drift,
      repaired: history.repaired,
      rollouts: this.rolloutsNow(history.groups),
      pacing: this.pacingNow(),
      ...this.features.snapshot(redact),
    };
  }
}

function flight(record: RolloutRecord | undefined): RolloutStatus["inFlight"] {
  return record === undefined ? null : { batch: record.batch, phase: record.phase, members: record.members.map((member) => member.name) };
}
