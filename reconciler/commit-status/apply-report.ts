/**
 * `apply --repo --status-provider` (CI): the run is one round for the commit statuses. pending once the commit loaded and the
 * space is known; success when apply ends with the space matching it; failure with the reason when it refuses (budget,
 * policy), a step fails, a change is blocked, or the commit does not load. Every status is sent before apply returns.
 */
import type { ApplyResult } from "../../engine/index.js";
import type { RoundEnd } from "../watch/events.js";
import { firstFailure } from "../watch/apply-plan.js";
import type { CliIo } from "../io.js";
import { commitStatusObserver } from "./posting.js";
import { blockedSummary, type CommitStatusObserver } from "./observer.js";
import type { CommitStatusSettings } from "./settings.js";

export class ApplyStatusReport {
  private readonly observer: CommitStatusObserver;
  private loaded = false;
  private revision: string | undefined;
  private reason: string | undefined;
  private readonly startedAt = Date.now();

  constructor(settings: CommitStatusSettings, io: CliIo, fetchedRevision: () => string | undefined) {
    this.observer = commitStatusObserver(settings, io, { fetchedRevision });
  }

  /** The commit loaded and the space connected: pending. */
  started(spaceId: string, revision: string | undefined): void {
    this.loaded = true;
    this.revision = revision;
    this.observer.roundStarted({ round: 1, trigger: "start", startedAt: this.startedAt, spaceId });
    this.observer.revisionLoaded({ round: 1, revision });
  }

  /** What the apply did, for the reason of a failure. */
  applied(result: ApplyResult): void {
    const unconverged = result.converged ? undefined : "the space did not converge";
    this.reason = firstFailure(result)?.message ?? blockedSummary(result.blocked) ?? unconverged;
  }

  /**
   * Runs the apply and posts what it came to. `spaceOf` connects when the commit did not load, so that its failure still goes
   * to the space's context.
   */
  async around(run: () => Promise<number>, spaceOf: () => Promise<string>): Promise<number> {
    try {
      const code = await run();
      if (code === 0) this.end("succeeded");
      else if (code === 1) this.end("failed", this.reason ?? `apply exited ${code}`);
      return code;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.loaded) this.end("failed", message);
      else {
        const spaceId = await spaceOf().catch(() => undefined);
        this.observer.roundStarted({
          round: 1,
          trigger: "start",
          startedAt: this.startedAt,
          ...(spaceId !== undefined ? { spaceId } : {}),
        });
        this.end("source-failed", message);
      }
      throw error;
    } finally {
      await this.observer.close();
    }
  }

  private end(outcome: RoundEnd["outcome"], message?: string): void {
    this.observer.roundEnded({
      round: 1,
      trigger: "start",
      startedAt: this.startedAt,
      finishedAt: Date.now(),
      outcome,
      revision: this.revision,
      ...(message !== undefined ? { error: { code: undefined, message: message.replace(/\s*\n\s*/g, " ") } } : {}),
      drift: [],
      repaired: [],
      plan: undefined,
      applying: true,
      mutations: 0,
      converged: outcome === "succeeded",
    });
  }
}
