/**
 * The parts of /status that other features of watch fill in: previews, commit statuses posted to the forge, notifications sent. Each list is
 * null until its feature calls here (the page says "not enabled"), then an array, newest first, bounded. Recorders call these from their own
 * observers; nothing here sends anything. Messages are redacted when /status is served.
 */

/** Entries kept per list. */
export const FEATURE_ENTRIES_KEPT = 50;

export interface PreviewStatus {
  /** The preview's id (e.g. the pull request's number or its branch). */
  id: string;
  /** The ref or revision it runs. */
  ref: string | null;
  createdAt: string;
  cubes: number | null;
  costPerMonth: number | null;
  currency: string | null;
  /** Where to reach it, when it has an address. */
  url: string | null;
}

export interface CommitStatusSent {
  at: string;
  revision: string;
  /** As the forge names it: pending, success, failure, error. */
  state: string;
  /** The forge ("github", "gitlab", "gitea") or its host. */
  target: string;
  description: string | null;
  /** Why it could not be posted; null when it was. */
  error: string | null;
}

export interface NotificationSent {
  at: string;
  /** The channel as configured (a name, never its URL: it may hold a token). */
  channel: string;
  /** What it told: "round-failed", "drift", "repaired", … */
  event: string;
  ok: boolean;
  error: string | null;
}

export interface FeatureLists {
  previews: PreviewStatus[] | null;
  commitStatuses: CommitStatusSent[] | null;
  notifications: NotificationSent[] | null;
}

export class FeatureStatus {
  private previews: PreviewStatus[] | null = null;
  private commitStatuses: CommitStatusSent[] | null = null;
  private notifications: NotificationSent[] | null = null;

  commitStatusSent(status: CommitStatusSent): void {
    this.commitStatuses = newestFirst(status, this.commitStatuses);
  }

  notificationSent(notification: NotificationSent): void {
    this.notifications = newestFirst(notification, this.notifications);
  }

  /** Declares a feature on before it has anything to show, so the page says "none" rather than "not enabled". */
  enable(feature: keyof FeatureLists): void {
    this[feature] ??= [];
  }

  snapshot(redact: (text: string) => string): FeatureLists {
    const redactError = <T extends { error: string | null }>(entry: T): T =>
      entry.error === null ? entry : { ...entry, error: redact(entry.error) };
    return {
      previews: this.previews === null ? null : [...this.previews],
      commitStatuses: this.commitStatuses?.map(redactError) ?? null,
      notifications: this.notifications?.map(redactError) ?? null,
    };
  }
}

function newestFirst<T>(entry: T, list: T[] | null): T[] {
  return [entry, ...(list ?? [])].slice(0, FEATURE_ENTRIES_KEPT);
}
