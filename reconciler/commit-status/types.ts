/** What a commit status is, whichever forge shows it. */

/** GitHub's and Gitea's states; GitLab's forge file maps them to its own. */
export type CommitState = "pending" | "success" | "failure" | "error";

export interface CommitStatus {
  sha: string;
  state: CommitState;
  /** One per space (`cubeform/<space>`): statuses of several spaces or clusters never overwrite each other. */
  context: string;
  /** Short, one line, cut to the forge's limit. */
  description: string;
  targetUrl?: string;
}

/** The HTTP request that posts a status: the forge files build it, the queue sends it. */
export interface StatusRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Forge {
  name: "github" | "gitlab" | "gitea";
  request(status: CommitStatus, token: string): StatusRequest;
}

/** GitHub's limit for a description (its docs: "a short description of the status"; longer ones are refused with 422). */
export const DESCRIPTION_MAX = 140;
