/**
 * Gitea (and Forgejo): `POST /api/v1/repos/{owner}/{repo}/statuses/{sha}` with `{state: pending|success|error|failure|warning,
 * context, description, target_url}` and `Authorization: token TOKEN` (its API's "Create a commit status"). API root:
 * https://HOST/api/v1.
 */
import { repoStatusesForge } from "./github.js";
import type { Forge } from "./types.js";

export function giteaForge(apiUrl: string, repository: string): Forge {
  return repoStatusesForge("gitea", apiUrl, repository, (token) => ({ authorization: `token ${token}`, accept: "application/json" }));
}
