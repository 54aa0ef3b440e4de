/** Commit statuses on GitHub, GitLab and Gitea from `watch --repo` and `apply --repo` (--status-provider). */
export { statusSettings, type CommitStatusSettings } from "./settings.js";
export { commitStatusObserver } from "./posting.js";
export { ApplyStatusReport } from "./apply-report.js";
