/**
 * The notification event, version 1: what every `--notify` target receives (as JSON, or rendered for Slack). A field is only ever added in
 * version 1; a change of meaning makes version 2.
 */
import { randomUUID } from "node:crypto";

export const NOTIFY_EVENT_VERSION = 1;

export type NotifyEventType =
  | "drift.detected"
  | "drift.repaired"
  | "drift.flapping"
  | "apply.failed"
  | "rollout.reverted"
  | "source.broken"
  | "budget.blocked"
  | "policy.blocked"
  | "policy.overridden";

/** Where the desired state came from: a git source (its url without credentials) or files. */
export type NotifySource = { kind: "git"; repo: string; ref: string; path: string } | { kind: "files"; files: string[] };

export interface NotifyEvent {
  version: typeof NOTIFY_EVENT_VERSION;
  type: NotifyEventType;
  /** Unique per event and stable across delivery retries: a receiver drops one it has seen. */
  id: string;
  /** When cubeform decided to send it (ISO 8601, UTC). */
  time: string;
  /** The space acted on (null when it was not known yet, e.g. a source that never loaded). */
  space: string | null;
  /** The commit enforced (git sources), else null. */
  revision: string | null;
  source: NotifySource;
  /** Which command sent it: watch, apply or drift. */
  command: "watch" | "apply" | "drift";
  /** One line for people, the same as the Slack text's first line. */
  summary: string;
  details: Record<string, unknown>;
}

/** What the sender knows about where it runs: the same for every event of a run (the space may be learnt later). */
export interface EventOrigin {
  command: NotifyEvent["command"];
  source: NotifySource;
  space: string | null;
  revision: string | null;
}

export function newEvent(
  type: NotifyEventType,
  origin: EventOrigin,
  summary: string,
  details: Record<string, unknown>,
  now = new Date(),
): NotifyEvent {
  return {
    version: NOTIFY_EVENT_VERSION,
    type,
    id: randomUUID(),
    time: now.toISOString(),
    space: origin.space,
    revision: origin.revision,
    source: origin.source,
    command: origin.command,
    summary,
    details,
  };
}

/** A repository url as events show it: no user, password or token, no query (they may carry credentials). */
export function shownRepoUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    parsed.hash = "";
    return parsed.toString();
  } catch {
    // scp-like git@host:path: the user is the transport's, not a secret.
    return url.replace(/^[^@/]*:[^@/]*@/, "");
  }
}
