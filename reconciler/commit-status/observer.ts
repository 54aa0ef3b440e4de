/**
 * Commit statuses from the watch loop's rounds, one context per space. Per (context, revision) each state is posted at most
 * once: `pending` when a round first loads the revision, `success` when a round ends with the space converged to it, `failure`
 * (with the reason) when a round on it fails or is held, or when the fetched commit does not load, and `error` ("superseded")
 * when a newer revision is loaded while it was still pending. A revision that succeeded never turns to failure afterwards
 * (a later outage of the API is not its fault).
 */
import type { RevisionLoaded, RoundEnd, RoundStart, WatchObserver } from "../watch/events.js";
import type { ResourceChange } from "../../engine/index.js";
import { blockedChanges } from "../render/values.js";
import { short, type StatusQueue } from "./queue.js";
import { DESCRIPTION_MAX, type CommitState, type CommitStatus } from "./types.js";

export interface ObserverOptions {
  queue: Pick<StatusQueue, "push" | "close">;
  /** The context for a space: `cubeform/<space>` unless --status-context says otherwise. */
  contextFor: (space: string | undefined) => string;
  /** The commit the last fetch found (a head that never loaded, when nothing had loaded before it). */
  fetchedRevision: () => string | undefined;
  targetUrl?: string;
  /** Secrets of the run out of a description (a source error may quote a file). */
  redact?: (text: string) => string;
}

/** How many revisions' statuses are remembered (a process that runs for months must not grow). */
const REMEMBERED = 200;

export class CommitStatusObserver implements WatchObserver {
  private space: string | undefined;
  /** The states posted per revision, in the order revisions were seen. */
  private readonly posted = new Map<string, Set<CommitState>>();
  /** The revision whose last status is pending: superseded if another loads first. */
  private open: string | undefined;

  constructor(private readonly options: ObserverOptions) {}

  roundStarted(event: RoundStart): void {
    this.space = event.spaceId ?? this.space;
  }

  revisionLoaded(event: RevisionLoaded): void {
    if (event.brokenRevision !== undefined) this.post(event.brokenRevision, "failure", `does not load: ${event.sourceError ?? "invalid"}`);
    const revision = event.revision;
    if (revision === undefined) return;
    if (this.open !== undefined && this.open !== revision)
      this.post(this.open, "error", `superseded by ${short(revision)} before it was applied`);
    if (
      !this.has(revision, "success") &&
      !this.has(revision, "failure") &&
      this.post(revision, "pending", "reconciling the space to this commit")
    )
      this.open = revision;
  }

  roundEnded(event: RoundEnd): void {
    if (event.outcome === "stopped") return;
    if (event.outcome === "source-failed") {
      const fetched = this.options.fetchedRevision();
      if (fetched !== undefined) this.post(fetched, "failure", `does not load: ${event.error?.message ?? "the source failed"}`);
      return;
    }
    const revision = event.revision;
    if (revision === undefined) return;
    const failure = failureOf(event);
    if (failure !== undefined) {
      if (!this.has(revision, "success")) this.post(revision, "failure", failure);
    } else if (event.converged)
      this.post(revision, "success", event.applying ? "applied: the space matches this commit" : "the space matches this commit");
    else return;
    if (this.open === revision) this.open = undefined;
  }

  close(): Promise<void> {
    return this.options.queue.close();
  }

  private has(revision: string, state: CommitState): boolean {
    return this.posted.get(revision)?.has(state) === true;
  }

  /** Queues the status unless that state was posted for the revision before; whether it was queued. */
  private post(sha: string, state: CommitState, description: string): boolean {
    const states = this.posted.get(sha) ?? new Set<CommitState>();
    if (states.has(state)) return false;
    states.add(state);
    this.posted.delete(sha);
    this.posted.set(sha, states);
    if (this.posted.size > REMEMBERED) this.posted.delete(this.posted.keys().next().value!);
    const status: CommitStatus = {
      sha,
      state,
      context: this.options.contextFor(this.space),
      description: cut(this.options.redact?.(description) ?? description),
      ...(this.options.targetUrl ? { targetUrl: this.options.targetUrl } : {}),
    };
    this.options.queue.push(status);
    return true;
  }
}

/** Why a round that ended did not bring the space to its revision, when that is a failure (and not just work left). */
function failureOf(event: RoundEnd): string | undefined {
  if (event.outcome === "failed") return `failed: ${event.error?.message ?? "the round failed"}`;
  if (event.held === "budget") return "held: the plan's cost is over the file's budget";
  if (event.held === "policy") return "held: a mandatory policy rule refuses the change";
  return event.plan === undefined ? undefined : blockedSummary(blockedChanges(event.plan));
}

/** "N changes blocked: " and the first one's address and reason; undefined when none is. */
export function blockedSummary(blocked: readonly ResourceChange[]): string | undefined {
  const first = blocked[0];
  if (first === undefined) return undefined;
  return `${blocked.length} ${blocked.length === 1 ? "change" : "changes"} blocked: ${first.address}: ${first.blocked?.reason ?? "not allowed"}`;
}

/** One line within the forge's limit. */
function cut(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > DESCRIPTION_MAX ? `${line.slice(0, DESCRIPTION_MAX - 1)}…` : line;
}
