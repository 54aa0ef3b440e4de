/**
 * Gitea (and Forgejo): `POST /api/v1/repos/{owner}/{repo}/statuses/{sha}` with `{state: pending|success|error|failure|warning,
 * context, description, target_url}` and `Authorization: token TOKEN` (its API's "Create a commit status"). API root:
 * https://HOST/api/v1.
 */
import { ownerAndName, trimSlash } from "./github.js";
import type { CommitStatus, Forge, StatusRequest } from "./types.js";

export function giteaForge(apiUrl: string, repository: string): Forge {
  const [owner, repo] = ownerAndName(repository);
  return {
    name: "gitea",
    request(status: CommitStatus, token: string): StatusRequest {
      return {
        url: `${trimSlash(apiUrl)}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/statuses/${encodeURIComponent(status.sha)}`,
        headers: {
          authorization: `token ${token}`,
          accept: "application/json",
          "content-type": "application/json",
          "user-agent": "cubeform",
        },
        body: JSON.stringify({
          state: status.state,
          context: status.context,
          description: status.description,
          ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
        }),
      };
    },
  };
}
