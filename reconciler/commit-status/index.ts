/** Commit statuses on GitHub, GitLab and Gitea from `watch --repo` and `apply --repo` (--status-provider). */
export {
  statusSettings,
  STATUS_PROVIDERS,
  TOKEN_VARIABLE,
  type CommitStatusSettings,
  type StatusFlags,
  type StatusProvider,
} from "./settings.js";
export { CommitStatusObserver } from "./observer.js";
export { commitStatusObserver, type ObserverDeps } from "./posting.js";
export { ApplyStatusReport } from "./apply-report.js";
