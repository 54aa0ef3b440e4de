/** What the commit-status and notify features hand to /status (feature-status.ts) when a status or a notification went out or was given up. */
import type { CommitStatus } from "../commit-status/types.js";
import type { NotifyEvent } from "../notify/event.js";
import type { FeatureStatus } from "./feature-status.js";

export function commitStatusRecorder(features: FeatureStatus): (status: CommitStatus, forge: string, error: string | null) => void {
  return (status, forge, error) =>
    features.commitStatusSent({
      at: new Date().toISOString(),
      revision: status.sha,
      state: status.state,
      target: forge,
      description: status.description || null,
      error,
    });
}

/** `channel` is the receiver's origin (delivery.ts shownTarget): a url's path may be its key. */
export function notificationRecorder(features: FeatureStatus): (event: NotifyEvent, channel: string, error: string | null) => void {
  return (event, channel, error) =>
    features.notificationSent({ at: new Date().toISOString(), channel, event: event.type, ok: error === null, error });
}
