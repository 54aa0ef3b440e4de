/**
 * GitLab: `POST /api/v4/projects/:id/statuses/:sha` with `state` pending|running|success|failed|canceled, `name` (the context),
 * `description`, `target_url`, and the `PRIVATE-TOKEN` header (its Commits API, "Set the pipeline status of a commit"). `:id` is
 * the project's number or its URL-encoded path (group/project). API root: https://HOST/api/v4.
 */
import { trimSlash } from "./github.js";
import type { CommitState, CommitStatus, Forge, StatusRequest } from "./types.js";

/** GitLab has no "error": a superseded revision is canceled; a failure is failed. */
const GITLAB_STATES: Record<CommitState, string> = { pending: "pending", success: "success", failure: "failed", error: "canceled" };

export function gitlabForge(apiUrl: string, project: string): Forge {
  return {
    name: "gitlab",
    request(status: CommitStatus, token: string): StatusRequest {
      return {
        url: `${trimSlash(apiUrl)}/projects/${encodeURIComponent(project)}/statuses/${encodeURIComponent(status.sha)}`,
        headers: { "private-token": token, accept: "application/json", "content-type": "application/json", "user-agent": "cubeform" },
        body: JSON.stringify({
          state: GITLAB_STATES[status.state],
          name: status.context,
          description: status.description,
          ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
        }),
      };
    },
  };
}
