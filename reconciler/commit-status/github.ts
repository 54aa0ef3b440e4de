/**
 * GitHub: `POST /repos/{owner}/{repo}/statuses/{sha}` with `{state, target_url?, description, context}` and
 * `Authorization: Bearer TOKEN` (REST API "Create a commit status"). API root: https://api.github.com, or
 * https://HOST/api/v3 on GitHub Enterprise Server.
 */
import type { CommitStatus, Forge, StatusRequest } from "./types.js";

export const GITHUB_API = "https://api.github.com";

export function githubForge(apiUrl: string, repository: string): Forge {
  return repoStatusesForge("github", apiUrl, repository, (token) => ({
    authorization: `Bearer ${token}`,
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
  }));
}

/** GitHub's `/repos/{owner}/{repo}/statuses/{sha}`, which Gitea serves too: the two differ only in their auth and accept headers. */
export function repoStatusesForge(
  name: Forge["name"],
  apiUrl: string,
  repository: string,
  headers: (token: string) => Record<string, string>,
): Forge {
  const [owner, repo] = ownerAndName(repository);
  return {
    name,
    request(status: CommitStatus, token: string): StatusRequest {
      return {
        url: `${trimSlash(apiUrl)}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/statuses/${encodeURIComponent(status.sha)}`,
        headers: { ...headers(token), "content-type": "application/json", "user-agent": "cubeform" },
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

/** "owner/name" as --status-repo or the repository URL names it. */
export function ownerAndName(repository: string): [string, string] {
  const parts = repository.split("/");
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new Error(`"${repository}" is not OWNER/NAME`);
  return [parts[0], parts[1]];
}

export const trimSlash = (url: string): string => url.replace(/\/+$/, "");
