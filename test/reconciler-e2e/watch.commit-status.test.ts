/**
 * Issue 35 item 2, "Done when": `watch --apply --repo --status-provider github` (the built bin, the emulator, a git repository
 * read through file://, pushes as GitHub-signed webhooks) posts on a fake GitHub (test/support/fake-forge.ts; GitHub's
 * `POST /repos/{owner}/{repo}/statuses/{sha}` with `Authorization: Bearer TOKEN`) exactly these statuses, in order, each once:
 *   good commit → pending, success; broken commit → failure (the last good one is still enforced, nothing re-posted for it);
 *   a commit superseded mid-round (its round did not converge: someone stopped a cube while it applied, and the next push
 *   arrived meanwhile) → pending, error; the forge answering 500 (echoing the token) until the test flips it: the apply
 *   goes on, its statuses come after, in order. In-sync rounds every interval post nothing more. The token never shows.
 */
import { expect, test } from "vitest";
import { startFakeForge } from "../support/fake-forge.js";
import { holdingProxy, plainFleet, projectWithRepo, waitFor } from "./support.js";
import { githubPush, roundsTotal, startRepoWatch, stopWatch } from "./support/watch.js";

const TOKEN = "ghp_statusTokenForTests0123456789";

test("watch --repo posts pending/success, failure for a broken commit, error for a superseded one, each once and in order; a forge outage delays statuses, not the apply", {
  timeout: 240_000,
}, async () => {
  const { p, repo, first: c1 } = await projectWithRepo({ "cubeform.yaml": plainFleet("web") });
  const forge = await startFakeForge("github", TOKEN);
  let armed = false;
  const proxy = await holdingProxy(
    p.emu,
    (method, path, body) => armed && method === "POST" && /\/cubes$/.test(path) && body.includes('"name":"db"'),
  );
  const status = ["--status-provider", "github", "--status-url", forge.url, "--status-repo", "acme/fleet"];
  const {
    child: watch,
    base,
    port,
  } = await startRepoWatch(p, repo.url, {
    interval: "3s",
    env: { ...repo.env, CUBE_API_URL: proxy.url, CUBEFORM_STATUS_TOKEN: TOKEN },
    args: status,
  });
  const context = `cubeform/${p.emu.spaceId}`;
  const seen = (): string[] => forge.accepted.map((s) => `${s.sha.slice(0, 7)} ${s.state}`);
  const has = (sha: string, state: string) => () => seen().includes(`${sha.slice(0, 7)} ${state}`);
  const inSync = (sha: string) => () => watch.stdout().includes(`(commit ${sha.slice(0, 12)}): in sync`);
  const names = async (): Promise<string[]> => (await p.api.listCubes()).map((c) => c.name).sort();
  const explain = (): string =>
    `statuses: ${seen().join(", ")}\n--- emulator\n${JSON.stringify(p.emu.admin.requests().slice(-8))}\n--- stdout\n${watch.stdout()}\n--- stderr\n${watch.stderr()}`;

  // 1. A good commit: pending, then success; the rounds every 3 s after it post nothing more.
  await waitFor(has(c1, "success"), { timeoutMs: 60_000, message: `c1 success\n${explain()}` });
  const roundsAfter = (n: number) =>
    waitFor(async () => (await roundsTotal(base)) >= n, {
      timeoutMs: 60_000,
      message: `${n} rounds`,
    });
  await roundsAfter(3);

  // 2. A broken commit: failure on it, with FILE:LINE:COL; c1 (still enforced) gets nothing new.
  const c2 = repo.commit({ "cubeform.yaml": plainFleet("web", "db").replace("vcpu: 1", "vcpu: lots") });
  expect((await githubPush(port)).status).toBe(200);
  await waitFor(has(c2, "failure"), { timeoutMs: 60_000, message: `c2 failure\n${explain()}` });

  // 3. Superseded mid-round: c3's round holds on its create of db; meanwhile c4 is pushed and web is stopped out of band, so
  //    c3's round ends with a change left (not converged) and the next round loads c4.
  armed = true;
  const running = (text: string): string => text.replace("  - name: web\n", "  - name: web\n    power: running\n");
  const c3 = repo.commit({ "cubeform.yaml": running(plainFleet("web", "db")) });
  expect((await githubPush(port)).status).toBe(200);
  await proxy.held;
  await waitFor(has(c3, "pending"), { timeoutMs: 30_000, message: `c3 pending\n${explain()}` });
  const c4 = repo.commit({ "cubeform.yaml": running(plainFleet("web", "db", "cache")) });
  expect((await githubPush(port)).status).toBe(200);
  const web = (await p.api.listCubes()).find((c) => c.name === "web")!;
  await p.api.powerOff(web.id);
  await waitFor(async () => (await p.api.listCubes()).find((c) => c.name === "web")?.state === "stopped", {
    timeoutMs: 30_000,
    message: "web stopped out of band",
  });
  expect(await proxy.release()).toBe(201);
  await waitFor(has(c4, "success"), { timeoutMs: 60_000, message: `c4 success\n${explain()}` });
  expect(watch.stdout()).toMatch(new RegExp(`\\(commit ${c3.slice(0, 12)}\\): 1 change left for the next round`));

  // 4. The forge answers 500 (echoing the token) until the test flips it: c5 is applied meanwhile, its statuses come after.
  forge.fail(500, { echoToken: true, retryAfter: "1" });
  const c5 = repo.commit({ "cubeform.yaml": running(plainFleet("web", "db", "cache", "queue")) });
  expect((await githubPush(port)).status).toBe(200);
  await waitFor(inSync(c5), { timeoutMs: 60_000, message: `c5 applied while the forge is down\n${explain()}` });
  expect(await names()).toEqual(["cache", "db", "queue", "web"]);
  await waitFor(() => forge.requests.filter((r) => r.answered === 500).length >= 2, {
    timeoutMs: 30_000,
    message: "retries against the 500s",
  });
  expect(seen().filter((s) => s.startsWith(c5.slice(0, 7)))).toEqual([]);
  forge.recover();
  await waitFor(has(c5, "success"), { timeoutMs: 60_000, message: `c5 success after the outage\n${explain()}` });
  await roundsAfter((await roundsTotal(base)) + 2);

  const metrics = await (await fetch(`${base}/metrics`)).text();
  const state = await (await fetch(`${base}/status`)).text();
  const ended = await stopWatch(watch);

  expect(seen()).toEqual([
    `${c1.slice(0, 7)} pending`,
    `${c1.slice(0, 7)} success`,
    `${c2.slice(0, 7)} failure`,
    `${c3.slice(0, 7)} pending`,
    `${c3.slice(0, 7)} error`,
    `${c4.slice(0, 7)} pending`,
    `${c4.slice(0, 7)} success`,
    `${c5.slice(0, 7)} pending`,
    `${c5.slice(0, 7)} success`,
  ]);
  expect(new Set(forge.accepted.map((s) => s.context))).toEqual(new Set([context]));
  expect(forge.accepted.every((s) => s.repository === "acme/fleet")).toBe(true);
  expect(forge.accepted[2]!.description).toMatch(/^does not load: cubeform\.yaml at commit [0-9a-f]{12} is not valid/);
  expect(forge.accepted[4]!.description).toBe(`superseded by ${c4.slice(0, 12)} before it was applied`);
  expect(metrics).toMatch(/cubeform_commit_statuses_total\{state="pending",result="retried"\} [1-9]/);
  expect(metrics).toContain('cubeform_commit_statuses_total{state="success",result="posted"} 3');
  expect(ended.stderr).toContain("github answered 500: upstream failed for request with token [REDACTED]");
  for (const text of [ended.stdout, ended.stderr, metrics, state]) expect(text).not.toContain(TOKEN);
  expect(explain()).not.toContain(TOKEN);
});
