/**
 * Push events from a forge (`watch --repo … --listen`): GitHub, Gitea and GitLab, checked against --push-secret-file in constant time. A push to
 * the watched ref starts a round; any other push or event is acknowledged and starts nothing.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { tryOr } from "../../system/files.js";

export type Forge = "github" | "gitlab" | "gitea";

export type PushVerdict =
  | { kind: "refused"; reason: string }
  | { kind: "ignored"; reason: string }
  | { kind: "sync"; forge: Forge; ref: string };

/** Which forge sent the delivery; undefined: not a forge's (the service's own deliveries). */
export function forgeOf(headers: IncomingHttpHeaders): Forge | undefined {
  if (headers["x-gitea-event"] !== undefined) return "gitea";
  if (headers["x-gitlab-event"] !== undefined) return "gitlab";
  if (headers["x-github-event"] !== undefined) return "github";
  return undefined;
}

/** `watchedRef` undefined: the remote's default branch (as the payload names it). */
export function checkPush(
  forge: Forge,
  headers: IncomingHttpHeaders,
  body: Buffer,
  secret: string | undefined,
  watchedRef: string | undefined,
): PushVerdict {
  if (secret === undefined || secret === "")
    return { kind: "refused", reason: `a ${forge} push arrived, but no --push-secret-file is set to check it` };
  if (!signed(forge, headers, body, secret)) return { kind: "refused", reason: `a ${forge} push with a missing or wrong signature` };
  const event = String(headers[`x-${forge}-event`] ?? "");
  if (event !== "push" && event !== "Push Hook" && event !== "Tag Push Hook") return { kind: "ignored", reason: `${forge} event ${event}` };
  const payload = parse(body);
  const ref = typeof payload?.ref === "string" ? payload.ref : "";
  if (!matches(ref, watchedRef, defaultBranchOf(payload)))
    return { kind: "ignored", reason: `a push to ${ref || "an unnamed ref"}, not the watched ref` };
  return { kind: "sync", forge, ref };
}

function signed(forge: Forge, headers: IncomingHttpHeaders, body: Buffer, secret: string): boolean {
  if (forge === "gitlab") return sameText(String(headers["x-gitlab-token"] ?? ""), secret);
  const hmac = createHmac("sha256", secret).update(body).digest("hex");
  const github = String(headers["x-hub-signature-256"] ?? "");
  const gitea = String(headers["x-gitea-signature"] ?? "");
  return (github !== "" && sameText(github, `sha256=${hmac}`)) || (forge === "gitea" && gitea !== "" && sameText(gitea, hmac));
}

/** Constant time whatever the lengths: the digests of both are compared. */
function sameText(a: string, b: string): boolean {
  const digest = (text: string): Buffer => createHmac("sha256", "cubeform-compare").update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}

interface PushPayload {
  ref?: unknown;
  repository?: { default_branch?: unknown };
  project?: { default_branch?: unknown };
}

function parse(body: Buffer): PushPayload | undefined {
  const value: unknown = tryOr(() => JSON.parse(body.toString("utf8")) as unknown, undefined);
  return typeof value === "object" && value !== null ? (value as PushPayload) : undefined;
}

function defaultBranchOf(payload: PushPayload | undefined): string | undefined {
  const branch = payload?.repository?.default_branch ?? payload?.project?.default_branch;
  return typeof branch === "string" ? branch : undefined;
}

function matches(ref: string, watched: string | undefined, defaultBranch: string | undefined): boolean {
  if (ref === "") return false;
  // Without --ref, the default branch; a payload that does not say which it is costs one round (one ls-remote if the ref did not move).
  if (watched === undefined || watched === "HEAD") return defaultBranch === undefined || ref === `refs/heads/${defaultBranch}`;
  return ref === watched || ref === `refs/heads/${watched}` || ref === `refs/tags/${watched}`;
}
