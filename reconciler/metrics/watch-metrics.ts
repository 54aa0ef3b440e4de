/** The metrics `cubeform watch` exposes. */
import type { DeliveryCounters } from "../notify/index.js";
import { Registry } from "./registry.js";

export type WatchMetrics = ReturnType<typeof watchMetrics>;

export function watchMetrics() {
  const registry = new Registry();
  return {
    registry,
    rounds: registry.counter("cubeform_rounds_total", "Reconcile rounds finished, failed ones included."),
    roundErrors: registry.counter("cubeform_round_errors_total", "Reconcile rounds that failed (bad file, API error, failed step)."),
    driftedResources: registry.gauge(
      "cubeform_drifted_resources",
      "Resources whose live state differs from the file after the last round.",
    ),
    mutations: registry.counter("cubeform_mutations_total", "API mutations (POST/PATCH/DELETE) sent by apply rounds."),
    lastSuccess: registry.gauge(
      "cubeform_last_success_timestamp_seconds",
      "Unix time of the last round that finished without error (0: none yet).",
    ),
    sourceRevision: registry.info("cubeform_source_revision_info", "The commit of the git source that the last round fetched (--repo)."),
    appliedRevision: registry.info(
      "cubeform_source_applied_revision_info",
      "The last commit of the git source that was applied or found in sync (--repo).",
    ),
    sourceFailing: registry.gauge(
      "cubeform_source_failing",
      "1 when the last round could not fetch or load its source (a commit, the files; the last good load is still enforced), else 0.",
    ),
    commitStatuses: registry.labeledCounter(
      "cubeform_commit_statuses_total",
      "Commit statuses sent to the forge (--status-provider), by state and result: posted, retried (an attempt that failed and is tried again) or failed (refused, or given up).",
    ),
    rolloutInProgress: registry.labeledGauge(
      "cubeform_rollout_in_progress",
      "1 while a rollout of the group (label group) is under way in an apply round, else 0.",
      "group",
    ),
    blockedChanges: registry.gauge(
      "cubeform_blocked_changes",
      "Changes of the last plan that are blocked (termination protection, replacement not allowed, ambiguity).",
    ),
    notificationsSent: registry.counter(
      "cubeform_notifications_sent_total",
      "Notification events delivered (--notify; a 2xx answer), per target.",
    ),
    notificationFailures: registry.counter(
      "cubeform_notification_failures_total",
      "Notification delivery attempts that failed (network error, timeout or non-2xx); retried up to 5 tries.",
    ),
    notificationsDropped: registry.counter(
      "cubeform_notifications_dropped_total",
      "Notification events given up: queue full, retries exhausted, a final refusal (4xx), or still queued when watch stopped.",
    ),
    notificationsQueued: registry.gauge("cubeform_notifications_queued", "Notification events waiting or in flight."),
  };
}

/** The notification counters of the metrics, as deliveries report them. */
export function notifyCounters(metrics: WatchMetrics): DeliveryCounters {
  return {
    sent: () => metrics.notificationsSent.inc(),
    failed: () => metrics.notificationFailures.inc(),
    dropped: () => metrics.notificationsDropped.inc(),
    waiting: (n) => metrics.notificationsQueued.set(n),
  };
}
