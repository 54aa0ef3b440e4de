/**
 * A fake forge on 127.0.0.1 that answers the commit-status APIs as their public docs describe them:
 *  - GitHub: POST /repos/{owner}/{repo}/statuses/{sha}, JSON {state: pending|success|failure|error, target_url?, description?,
 *    context?}, `Authorization: Bearer TOKEN` (also "token TOKEN"); 201 with the status; 401 {message: "Bad credentials"};
 *    422 {message: "Validation Failed"} for an unknown state; a description over 140 characters is refused (422).
 *  - GitLab: POST /api/v4/projects/:id/statuses/:sha (id: a number or the URL-encoded path), state pending|running|success|failed|
 *    canceled, name, description, target_url; `PRIVATE-TOKEN` header; 201; 401 {message: "401 Unauthorized"}; 400 on a bad state.
 *  - Gitea: POST /api/v1/repos/{owner}/{repo}/statuses/{sha}, JSON {state: pending|success|error|failure|warning, context,
 *    description, target_url}, `Authorization: token TOKEN`; 201; 401.
 * Every request is recorded; `fail()` makes it answer an error (optionally echoing the token, as a careless proxy or forge
 * might) until `recover()`.
 */
import { createServer, type IncomingMessage } from "node:http";
import { listenUntilTestEnds } from "./listen.js";

export type ForgeKind = "github" | "gitlab" | "gitea";

export interface ForgeRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** The status the forge answered with. */
  answered: number;
}

/** An accepted status, in the forge's own vocabulary. */
export interface AcceptedStatus {
  sha: string;
  state: string;
  context: string;
  description: string;
  targetUrl?: string;
  /** github/gitea: "owner/repo"; gitlab: the decoded project id. */
  repository: string;
}

export interface FakeForge {
  kind: ForgeKind;
  /** The API root to give --status-url. */
  url: string;
  requests: ForgeRequest[];
  accepted: AcceptedStatus[];
  /** Answers `status` from now on, or for the next `times` requests. */
  fail(status: number, options?: { retryAfter?: string; echoToken?: boolean; times?: number }): void;
  recover(): void;
}

const STATES: Record<ForgeKind, string[]> = {
  github: ["pending", "success", "failure", "error"],
  gitlab: ["pending", "running", "success", "failed", "canceled"],
  gitea: ["pending", "success", "error", "failure", "warning"],
};

export async function startFakeForge(kind: ForgeKind, token: string): Promise<FakeForge> {
  const requests: ForgeRequest[] = [];
  const accepted: AcceptedStatus[] = [];
  let failure: { status: number; retryAfter?: string; echoToken?: boolean; times?: number } | undefined;
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += (chunk as Buffer).toString();
    const record: ForgeRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, answered: 0 };
    requests.push(record);
    const send = (status: number, answer: unknown, headers: Record<string, string> = {}): void => {
      record.answered = status;
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(answer));
    };
    if (failure !== undefined) {
      const message = failure.echoToken
        ? `upstream failed for request with token ${token} (${req.headers.authorization ?? req.headers["private-token"]})`
        : "Server Error";
      send(failure.status, { message }, failure.retryAfter !== undefined ? { "retry-after": failure.retryAfter } : {});
      if (failure.times !== undefined && --failure.times === 0) failure = undefined;
      return;
    }
    answer(kind, token, req, body, send, accepted);
  });
  const root = await listenUntilTestEnds(server);
  return {
    kind,
    url: kind === "github" ? root : kind === "gitlab" ? `${root}/api/v4` : `${root}/api/v1`,
    requests,
    accepted,
    fail: (status, options = {}) => (failure = { status, ...options }),
    recover: () => (failure = undefined),
  };
}

function answer(
  kind: ForgeKind,
  token: string,
  req: IncomingMessage,
  body: string,
  send: (status: number, answer: unknown) => void,
  accepted: AcceptedStatus[],
): void {
  const route =
    kind === "gitlab"
      ? /^\/api\/v4\/projects\/([^/]+)\/statuses\/([0-9a-f]{7,64})$/.exec(req.url ?? "")
      : new RegExp(`^${kind === "gitea" ? "/api/v1" : ""}/repos/([^/]+/[^/]+)/statuses/([0-9a-f]{7,64})$`).exec(req.url ?? "");
  if (req.method !== "POST" || route === null) return send(404, { message: "Not Found" });
  const authorized =
    kind === "gitlab"
      ? req.headers["private-token"] === token
      : kind === "gitea"
        ? req.headers.authorization === `token ${token}`
        : req.headers.authorization === `Bearer ${token}` || req.headers.authorization === `token ${token}`;
  if (!authorized) return send(401, { message: kind === "gitlab" ? "401 Unauthorized" : "Bad credentials" });
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return send(400, { message: "Problems parsing JSON" });
  }
  const state = String(json.state);
  const context = String((kind === "gitlab" ? json.name : json.context) ?? "default");
  const description = typeof json.description === "string" ? json.description : "";
  if (!STATES[kind].includes(state))
    return send(kind === "gitlab" ? 400 : 422, { message: kind === "gitlab" ? "state does not have a valid value" : "Validation Failed" });
  if (kind === "github" && description.length > 140)
    return send(422, { message: "Validation Failed: description is too long (maximum is 140 characters)" });
  const status: AcceptedStatus = {
    sha: route[2]!,
    state,
    context,
    description,
    repository: decodeURIComponent(route[1]!),
    ...(typeof json.target_url === "string" ? { targetUrl: json.target_url } : {}),
  };
  accepted.push(status);
  send(201, { id: accepted.length, state, context, description, target_url: status.targetUrl ?? null });
}
