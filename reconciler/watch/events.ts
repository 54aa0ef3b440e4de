/**
 * What the watch loop tells its observers (commit statuses, notifications, the status page's history): one report when a round starts,
 * when it knows the revision it enforces, and when it ends. Observers never hold a round up: a call that throws is logged and forgotten,
 * and slow work (a request to a forge, a webhook) is queued by the observer itself.
 */
import type { Plan, ResourceChange, StepOutcome } from "../../engine/index.js";

/** Why a round ran: the first one, the regular interval, a retry after a failure, a service webhook event, a forge push. */
export type RoundTrigger = "start" | "interval" | "retry" | "service-event" | "push";

export interface RoundStart {
  round: number;
  trigger: RoundTrigger;
  startedAt: number;
  /** The space the loop reconciles. */
  spaceId?: string;
}

export interface RevisionLoaded {
  round: number;
  /** The commit the round enforces (git); undefined for files. */
  revision: string | undefined;
  /** The commit the fetch found when it is not the one enforced: the head is broken and the last good commit is enforced instead. */
  brokenRevision?: string;
  /**
   * Why the source does not load (with FILE:LINE:COL), when the round enforces its last good load instead: with brokenRevision for
   * --repo, alone for local files.
   */
  sourceError?: string;
}

export interface RoundEnd extends RoundStart {
  finishedAt: number;
  outcome: "succeeded" | "failed" | "source-failed" | "stopped";
  /** As RevisionLoaded; undefined when the source never loaded. */
  revision: string | undefined;
  /** The failure, redacted and on one line; set when outcome is "failed" or "source-failed". */
  error?: { code: string | undefined; message: string };
  /** The changes the round's plan found (before any apply), blocked ones included. */
  drift: readonly ResourceChange[];
  /** The changes carried out without a failed step (--apply). */
  repaired: readonly ResourceChange[];
  /** What each step of the round's apply did (--apply, when it applied); a failed rollout batch names the members it reverted. */
  outcomes?: readonly StepOutcome[];
  /** The plan as the round ends: after the apply with --apply, else the plan read. */
  plan: Plan | undefined;
  applying: boolean;
  mutations: number;
  /** Why changes were held back when they were. */
  held?: "budget" | "policy";
  /** Nothing is left to change (blocked changes count as left). */
  converged: boolean;
}

export interface WatchObserver {
  roundStarted?(event: RoundStart): void;
  revisionLoaded?(event: RevisionLoaded): void;
  roundEnded?(event: RoundEnd): void;
  /** Flush queued work before the process ends (bounded by the caller). */
  close?(): Promise<void>;
}

export class WatchEvents {
  constructor(
    private readonly observers: readonly WatchObserver[],
    private readonly onObserverError: (error: unknown) => void,
  ) {}

  roundStarted(event: RoundStart): void {
    this.each((observer) => observer.roundStarted?.(event));
  }

  revisionLoaded(event: RevisionLoaded): void {
    this.each((observer) => observer.revisionLoaded?.(event));
  }

  roundEnded(event: RoundEnd): void {
    this.each((observer) => observer.roundEnded?.(event));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.observers.map((observer) => observer.close?.()));
  }

  private each(call: (observer: WatchObserver) => void): void {
    for (const observer of this.observers) {
      try {
        call(observer);
      } catch (error) {
        this.onObserverError(error);
      }
    }
  }
}
