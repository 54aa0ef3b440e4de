/** The observer that posts a run's statuses: a queue on the process's proxy-aware HTTP dispatcher, redacting what it logs. */
import { createNetwork } from "../../client/dispatcher.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import type { LabeledCounter } from "../metrics/registry.js";
import { CommitStatusObserver } from "./observer.js";
import { StatusQueue, type QueueOptions } from "./queue.js";
import { contextOf, type CommitStatusSettings } from "./settings.js";
import type { CommitStatus, Forge } from "./types.js";

export interface ObserverDeps {
  /** cubeform_commit_statuses_total (watch's metrics); absent for apply. */
  counter?: LabeledCounter;
  fetchedRevision: () => string | undefined;
  backoff?: QueueOptions["backoff"];
  /** A status posted or given up (watch's /status); `error` is redacted. */
  sent?: (status: CommitStatus, forge: Forge["name"], error: string | null) => void;
}

export function commitStatusObserver(settings: CommitStatusSettings, io: CliIo, deps: ObserverDeps): CommitStatusObserver {
  io.secrets?.add(settings.initialToken);
  const network = createNetwork(io.env, { connections: 1, timeoutMs: 30_000 });
  const redact = (text: string): string => {
    const token = settings.token();
    const hidden = token.length > 0 ? text.split(token).join("[REDACTED]").split(settings.initialToken).join("[REDACTED]") : text;
    return io.secrets?.redact(hidden) ?? hidden;
  };
  const queue = new StatusQueue({
    forge: settings.forge,
    token: settings.token,
    send: (url, options) => network.request(url, options),
    counted: (status, outcome, reason) => {
      deps.counter?.inc({ state: status.state, result: outcome });
      if (outcome !== "retried") deps.sent?.(status, settings.forge.name, outcome === "failed" ? redact(reason ?? "not posted") : null);
    },
    log: (line) => writeLine(io.stderr, escapeText(redact(`[${new Date().toISOString()}] ${line}`))),
    ...(deps.backoff ? { backoff: deps.backoff } : {}),
  });
  return new CommitStatusObserver({
    queue: {
      push: (status) => queue.push(status),
      close: async () => {
        await queue.close();
        await network.dispatcher.close();
      },
    },
    contextFor: (space) => contextOf(settings.context, space),
    fetchedRevision: deps.fetchedRevision,
    redact,
    ...(settings.targetUrl ? { targetUrl: settings.targetUrl } : {}),
  });
}
