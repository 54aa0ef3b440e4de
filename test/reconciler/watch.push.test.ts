/** Forge push events for `watch --repo --listen` (issue 21): each forge's signature, the watched ref, refusals. */
import { createHmac } from "node:crypto";
import { expect, test } from "vitest";
import { checkPush, forgeOf } from "../../reconciler/watch/push.js";

const SECRET = "s3cret";
const body = (ref: string, defaultBranch = "main"): Buffer =>
  Buffer.from(JSON.stringify({ ref, repository: { default_branch: defaultBranch }, project: { default_branch: defaultBranch } }));
const hmac = (payload: Buffer, secret = SECRET): string => createHmac("sha256", secret).update(payload).digest("hex");

test("GitHub, Gitea and GitLab pushes to the watched ref are accepted with their own signatures", () => {
  const payload = body("refs/heads/main");
  const github = { "x-github-event": "push", "x-hub-signature-256": `sha256=${hmac(payload)}` };
  const gitea = { "x-gitea-event": "push", "x-github-event": "push", "x-gitea-signature": hmac(payload) };
  const gitlab = { "x-gitlab-event": "Push Hook", "x-gitlab-token": SECRET };
  expect(forgeOf(github)).toBe("github");
  expect(forgeOf(gitea)).toBe("gitea");
  expect(forgeOf(gitlab)).toBe("gitlab");
  expect(forgeOf({ "x-krova-event": "cube.deleted" })).toBeUndefined();
  for (const headers of [github, gitea, gitlab])
    expect(checkPush(forgeOf(headers)!, headers, payload, SECRET, "main")).toMatchObject({ kind: "sync", ref: "refs/heads/main" });
});

test("a missing or wrong signature, or no configured secret, is refused", () => {
  const payload = body("refs/heads/main");
  expect(checkPush("github", { "x-github-event": "push" }, payload, SECRET, "main").kind).toBe("refused");
  expect(
    checkPush("github", { "x-github-event": "push", "x-hub-signature-256": `sha256=${hmac(payload, "other")}` }, payload, SECRET, "main")
      .kind,
  ).toBe("refused");
  expect(checkPush("gitea", { "x-gitea-event": "push", "x-gitea-signature": hmac(Buffer.from("{}")) }, payload, SECRET, "main").kind).toBe(
    "refused",
  );
  expect(checkPush("gitlab", { "x-gitlab-event": "Push Hook", "x-gitlab-token": "s3cre" }, payload, SECRET, "main").kind).toBe("refused");
  expect(
    checkPush("github", { "x-github-event": "push", "x-hub-signature-256": `sha256=${hmac(payload)}` }, payload, undefined, "main"),
  ).toMatchObject({ kind: "refused", reason: expect.stringContaining("--push-secret-file") });
});

test("other refs and other events are acknowledged and ignored; without --ref the payload's default branch is watched", () => {
  const signed = (payload: Buffer, event = "push") => ({ "x-github-event": event, "x-hub-signature-256": `sha256=${hmac(payload)}` });
  const feature = body("refs/heads/feature");
  expect(checkPush("github", signed(feature), feature, SECRET, "main").kind).toBe("ignored");
  const ping = body("refs/heads/main");
  expect(checkPush("github", signed(ping, "ping"), ping, SECRET, "main").kind).toBe("ignored");
  const tag = body("refs/tags/v2");
  expect(checkPush("github", signed(tag), tag, SECRET, "v2").kind).toBe("sync");
  const trunk = body("refs/heads/trunk", "trunk");
  expect(checkPush("github", signed(trunk), trunk, SECRET, undefined).kind).toBe("sync");
  const notDefault = body("refs/heads/main", "trunk");
  expect(checkPush("github", signed(notDefault), notDefault, SECRET, undefined).kind).toBe("ignored");
});
