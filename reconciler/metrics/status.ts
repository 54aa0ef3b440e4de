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
}

export interface RoundStatus {
  number: number;
  startedAt: string;
  /** null while it runs. */
  finishedAt: string | null;
  /** "source-failed": the source failed and no good load was there to enforce instead. */
  outcome: "running" | "succeeded" | "failed" | "source-failed";
  /** The commit the round enforced (git). */
  revision: string | null;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** What the loop records as it goes; `snapshot()` is the body of /status. */
export class WatchStatusRecorder {
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

  connected(spaceId: string): void {
    this.spaceId = spaceId;
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
      },
      lastRound:
        round === undefined
          ? null
          : { number: round.number, startedAt: iso(round.startedAt) as string, finishedAt: iso(round.finishedAt), outcome: round.outcome, revision: round.revision ?? null },
    };
  }
}
