/**
 * Commit statuses (issue 35 item 2): the requests each forge gets, from the loop's round events, against the fake forges of
 * test/support/fake-forge.ts (request shapes from the forges' public docs, stated there):
 *  - GitHub `POST /repos/{owner}/{repo}/statuses/{sha}` {state, description, context, target_url?}, `Authorization: Bearer TOKEN`;
 *  - GitLab `POST /api/v4/projects/:id/statuses/:sha` {state (failure → failed, error → canceled), name, description}, `PRIVATE-TOKEN`;
 *  - Gitea `POST /api/v1/repos/{owner}/{repo}/statuses/{sha}` {state, context, description, target_url}, `Authorization: token TOKEN`.
 * And the rules: one status per (context, revision, state), never success then failure, superseded only while pending, 5xx and
 * 429 retried (Retry-After honoured) without holding the caller, and the token in no line written, even when the forge echoes it.
 */
import { Writable } from "node:stream";
import { describe, expect, test } from "vitest";
import { commitStatusObserver, statusSettings } from "../../reconciler/commit-status/index.js";
import type { RevisionLoaded, RoundEnd } from "../../reconciler/watch/events.js";
import { watchMetrics } from "../../reconciler/metrics/watch-metrics.js";
import type { Plan } from "../../engine/index.js";
import { startFakeForge, type ForgeKind } from "../support/fake-forge.js";
import { waitFor } from "../support/wait.js";

const TOKEN = "forge-token-3b9d0c2e7a51";
const C1 = "1111111111111111111111111111111111111111";
const C2 = "2222222222222222222222222222222222222222";
const C3 = "3333333333333333333333333333333333333333";

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

async function setUp(kind: ForgeKind, extra: { statusRepo?: string } = {}) {
  const forge = await startFakeForge(kind, TOKEN);
  const stderr = new Capture();
  const io = { stdout: new Capture(), stderr, env: { CUBEFORM_STATUS_TOKEN: TOKEN } };
  const repository = kind === "gitlab" ? "acme/infra/fleet" : "acme/fleet";
  const settings = statusSettings(
    {
      statusProvider: kind,
      statusUrl: forge.url,
      statusRepo: extra.statusRepo ?? repository,
      statusTargetUrl: "https://ops.example.com/status",
    },
    "file:///tmp/fleet.git",
    "/",
    io.env,
  )!;
  const metrics = watchMetrics();
  let fetched: string | undefined;
  const observer = commitStatusObserver(settings, io, {
    counter: metrics.commitStatuses,
    fetchedRevision: () => fetched,
    backoff: { initialMs: 20, maxMs: 100 },
  });
  let round = 0;
  const events = {
    start: () => observer.roundStarted({ round: ++round, trigger: "push", startedAt: Date.now(), spaceId: "space-7" }),
    loaded: (revision: string | undefined, broken: Partial<RevisionLoaded> = {}) => observer.revisionLoaded({ round, revision, ...broken }),
    ended: (revision: string | undefined, end: Partial<RoundEnd> = {}) =>
      observer.roundEnded({
        round,
        trigger: "push",
        startedAt: 0,
        finishedAt: 0,
        outcome: "succeeded",
        revision,
        drift: [],
        repaired: [],
        plan: { changes: [] } as unknown as Plan,
        applying: true,
        mutations: 0,
        converged: true,
        ...end,
      }),
    setFetched: (revision: string) => (fetched = revision),
  };
  return { forge, stderr, io, metrics, observer, events };
}

const PENDING = { state: "pending", description: "reconciling the space to this commit", target_url: "https://ops.example.com/status" };

/** The first status each forge is sent: where, with which credentials, and the body in the forge's own field names. */
const FIRST_STATUS: Record<ForgeKind, { path: string; headers: Record<string, string | undefined>; body: object }> = {
  github: {
    path: `/repos/acme/fleet/statuses/${C1}`,
    headers: { authorization: `Bearer ${TOKEN}` },
    body: { ...PENDING, context: "cubeform/space-7" },
  },
  gitlab: {
    path: `/api/v4/projects/acme%2Finfra%2Ffleet/statuses/${C1}`,
    headers: { "private-token": TOKEN, authorization: undefined },
    body: { ...PENDING, name: "cubeform/space-7" },
  },
  gitea: {
    path: `/api/v1/repos/acme/fleet/statuses/${C1}`,
    headers: { authorization: `token ${TOKEN}` },
    body: { ...PENDING, context: "cubeform/space-7" },
  },
};

describe.each(["github", "gitlab", "gitea"] as const)("%s", (kind) => {
  test("a good commit: pending then success, as the forge's API takes them; in-sync rounds post nothing more", {
    timeout: 30_000,
  }, async () => {
    const { forge, observer, events } = await setUp(kind);
    events.start();
    events.loaded(C1);
    events.ended(C1);
    for (let i = 0; i < 3; i++) {
      events.start();
      events.loaded(C1);
      events.ended(C1);
    }
    await waitFor(() => forge.accepted.length === 2, { message: "two statuses" });
    await observer.close();
    const [request] = forge.requests;
    expect(request!.method).toBe("POST");
    const expected = FIRST_STATUS[kind];
    expect(request!.path).toBe(expected.path);
    for (const [header, value] of Object.entries(expected.headers)) expect(request!.headers[header], header).toBe(value);
    expect(JSON.parse(request!.body)).toEqual(expected.body);
    expect(forge.accepted.map((s) => [s.sha, s.state])).toEqual([
      [C1, "pending"],
      [C1, "success"],
    ]);
    expect(forge.requests).toHaveLength(2);
  });

  test("a broken head, a failed round and a superseded revision: failure with the reason, error (GitLab: failed, canceled)", {
    timeout: 30_000,
  }, async () => {
    const { forge, observer, events } = await setUp(kind);
    const failed = kind === "gitlab" ? "failed" : "failure";
    const superseded = kind === "gitlab" ? "canceled" : "error";
    events.start();
    events.loaded(C1);
    events.ended(C1, {
      converged: false,
      outcome: "failed",
      error: { code: "server_error", message: `create-cube cube/db: the API answered 500 ${"x".repeat(200)}` },
    });
    // The head C2 does not load: the round enforces C1 again.
    events.start();
    events.loaded(C1, {
      brokenRevision: C2,
      sourceError: "cubeform.yaml at commit 222222222222 is not valid: cubeform.yaml:5:10: defaults.resources.vcpu: expected a number",
    });
    events.ended(C1);
    // C3 loads; C1's success came after its failure (the retry converged). C3 stays pending, then C1 is force-pushed back.
    events.start();
    events.loaded(C3);
    events.ended(C3, { converged: false });
    events.start();
    events.loaded(C1);
    events.ended(C1, { outcome: "failed", converged: false, error: { code: "server_error", message: "later outage" } });
    await waitFor(() => forge.accepted.length === 6, { message: `six statuses, got ${JSON.stringify(forge.accepted)}` });
    await observer.close();
    expect(forge.accepted.map((s) => [s.sha.slice(0, 1), s.state])).toEqual([
      ["1", "pending"],
      ["1", failed],
      ["2", failed],
      ["1", "success"],
      ["3", "pending"],
      ["3", superseded],
    ]);
    expect(forge.accepted[1]!.description).toMatch(/^failed: create-cube cube\/db: the API answered 500 x+…$/);
    expect(forge.accepted[1]!.description).toHaveLength(140);
    expect(forge.accepted[2]!.description).toContain(
      "does not load: cubeform.yaml at commit 222222222222 is not valid: cubeform.yaml:5:10",
    );
    expect(forge.accepted[5]!.description).toBe(`superseded by ${C1.slice(0, 12)} before it was applied`);
  });
});

test("held by budget or policy, or blocked: failure with why; a head that never loaded (nothing good before it): failure on the fetched commit", {
  timeout: 30_000,
}, async () => {
  const { forge, observer, events } = await setUp("github");
  events.start();
  events.loaded(undefined);
  events.setFetched(C1);
  events.ended(undefined, {
    outcome: "source-failed",
    converged: false,
    error: { code: "invalid_file", message: "cubeform.yaml at commit 111111111111 is not valid" },
  });
  events.start();
  events.loaded(C2);
  events.ended(C2, { held: "budget", converged: false });
  events.start();
  events.loaded(C3);
  const blocked = {
    changes: [
      {
        address: "cube/db",
        action: "delete-then-create",
        blocked: { reason: "replacing it destroys its disk: allow with --allow-replace" },
      },
    ],
  } as unknown as Plan;
  events.ended(C3, { plan: blocked, converged: false });
  await waitFor(() => forge.accepted.length === 5, { message: "five statuses" });
  await observer.close();
  expect(forge.accepted.map((s) => [s.sha.slice(0, 1), s.state, s.description])).toEqual([
    ["1", "failure", "does not load: cubeform.yaml at commit 111111111111 is not valid"],
    ["2", "pending", "reconciling the space to this commit"],
    ["2", "failure", "held: the plan's cost is over the file's budget"],
    ["3", "pending", "reconciling the space to this commit"],
    ["3", "failure", "1 change blocked: cube/db: replacing it destroys its disk: allow with --allow-replace"],
  ]);
});

test("the forge down (500, then 429 with Retry-After) delays statuses, in order, each once; the token never shows though the forge echoes it", {
  timeout: 30_000,
}, async () => {
  const { forge, observer, events, stderr, metrics } = await setUp("github");
  forge.fail(500, { echoToken: true });
  const started = performance.now();
  events.start();
  events.loaded(C1);
  events.ended(C1);
  // The observer returned at once: posting happens in the queue.
  expect(performance.now() - started).toBeLessThan(50);
  await waitFor(() => forge.requests.length >= 3, { message: "retries" });
  forge.fail(429, { retryAfter: "0", echoToken: true });
  await waitFor(() => forge.requests.some((r) => r.answered === 429), { message: "a 429" });
  expect(forge.accepted).toEqual([]);
  forge.recover();
  await waitFor(() => forge.accepted.length === 2, { message: "both statuses after the outage" });
  await observer.close();
  expect(forge.accepted.map((s) => s.state)).toEqual(["pending", "success"]);
  expect(stderr.text).toContain("github answered 500: upstream failed for request with token [REDACTED]");
  expect(stderr.text).toContain("retrying (statuses wait, rounds do not)");
  expect(stderr.text).toContain(`commit status success posted on ${C1.slice(0, 12)}`);
  const exposed = metrics.registry.render();
  expect(exposed).toMatch(/cubeform_commit_statuses_total\{state="pending",result="retried"\} [1-9]/);
  expect(exposed).toContain('cubeform_commit_statuses_total{state="pending",result="posted"} 1');
  expect(exposed).toContain('cubeform_commit_statuses_total{state="success",result="posted"} 1');
  for (const text of [stderr.text, exposed]) expect(text).not.toContain(TOKEN);
});

test("a refusal (401) is final: logged once without the token, counted failed, and the next status still goes", {
  timeout: 30_000,
}, async () => {
  const forge = await startFakeForge("gitea", "another-token-value");
  const stderr = new Capture();
  const io = { stdout: new Capture(), stderr, env: { CUBEFORM_STATUS_TOKEN: TOKEN } };
  const settings = statusSettings(
    { statusProvider: "gitea", statusUrl: forge.url, statusRepo: "acme/fleet" },
    "file:///x.git",
    "/",
    io.env,
  )!;
  const metrics = watchMetrics();
  const observer = commitStatusObserver(settings, io, { counter: metrics.commitStatuses, fetchedRevision: () => undefined });
  observer.roundStarted({ round: 1, trigger: "start", startedAt: 0, spaceId: "s" });
  observer.revisionLoaded({ round: 1, revision: C1 });
  await waitFor(() => forge.requests.length === 1, { message: "one request" });
  await observer.close();
  expect(forge.requests).toHaveLength(1);
  expect(stderr.text).toContain("not posted to gitea: gitea answered 401: Bad credentials");
  expect(metrics.registry.render()).toContain('cubeform_commit_statuses_total{state="pending",result="failed"} 1');
  expect(stderr.text).not.toContain(TOKEN);
});

test("the repository and API root come from --repo's URL; a token comes only from a file or CUBEFORM_STATUS_TOKEN", () => {
  const env = { CUBEFORM_STATUS_TOKEN: TOKEN };
  const github = statusSettings({ statusProvider: "github" }, "git@github.com:acme/fleet.git", "/", env)!;
  expect(github.forge.request({ sha: C1, state: "success", context: "c", description: "d" }, TOKEN).url).toBe(
    `https://api.github.com/repos/acme/fleet/statuses/${C1}`,
  );
  const gitlab = statusSettings({ statusProvider: "gitlab" }, "https://gitlab.example.com/group/sub/fleet.git", "/", env)!;
  expect(gitlab.forge.request({ sha: C1, state: "error", context: "c", description: "d" }, TOKEN).url).toBe(
    `https://gitlab.example.com/api/v4/projects/group%2Fsub%2Ffleet/statuses/${C1}`,
  );
  const gitea = statusSettings({ statusProvider: "gitea" }, "ssh://git@git.example.org:2222/ops/fleet.git", "/", env)!;
  expect(gitea.forge.request({ sha: C1, state: "error", context: "c", description: "d" }, TOKEN).url).toBe(
    `https://git.example.org/api/v1/repos/ops/fleet/statuses/${C1}`,
  );
  expect(() => statusSettings({ statusProvider: "github" }, "file:///srv/fleet.git", "/", env)).toThrow(/--status-repo OWNER\/NAME/);
  expect(() => statusSettings({ statusProvider: "github", statusRepo: "a/b" }, "https://github.com/a/b", "/", {})).toThrow(
    /--status-token-file, or in CUBEFORM_STATUS_TOKEN/,
  );
  expect(() =>
    statusSettings({ statusProvider: "github", statusUrl: "http://forge.example.com" }, "https://github.com/a/b", "/", env),
  ).toThrow(/use https/);
  expect(() => statusSettings({ statusContext: "x" }, "https://github.com/a/b", "/", env)).toThrow(
    /--status-context needs --status-provider/,
  );
});
