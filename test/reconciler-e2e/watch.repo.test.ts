/**
 * `watch --apply --repo` (issue 21), the built bin against the emulator, with a bare repository
 * made here and read through file://. Commit a fleet → applied, revision reported; push events
 * (GitHub-signed) start rounds; a broken commit is never applied and /status says so (readiness
 * stays: issue 31 item 3); a fix
 * applies; a force-push to an older commit applies that state; a deleted path prunes nothing.
 * The push → applied timings are printed.
 */
import { expect, test } from "vitest";
import { escapeMarkdown } from "../../reconciler/render/escape.js";
import { describeRun, plainFleet, projectWithRepo, RATE, waitFor } from "./support.js";
import { fetchText as get, githubPush, startRepoWatch, stopWatch } from "./support/watch.js";

const pruned = (...names: string[]): string =>
  plainFleet(...names).replace("apiVersion: cubeform/v1\n", "apiVersion: cubeform/v1\nprune: true\n");

test("watch --repo applies each good commit, reports its revision, never applies a broken one and never prunes on a missing path", {
  timeout: 180_000,
}, async () => {
  const { p, repo, first: c1 } = await projectWithRepo({ "cubeform.yaml": pruned("web") });
  const names = async (): Promise<string[]> => (await p.api.listCubes()).map((c) => c.name).sort();
  const { child: watch, base, port } = await startRepoWatch(p, repo.url, { interval: "60s", env: repo.env });

  // 1. The first commit is applied and its revision reported everywhere.
  await waitFor(() => watch.stdout().includes(`(commit ${c1.slice(0, 12)}): in sync`), {
    timeoutMs: 60_000,
    message: `the first commit applied\n${watch.stdout()}\n${watch.stderr()}`,
  });
  expect(await names()).toEqual(["web"]);
  const [ready, readyBody] = await get(`${base}/readyz`);
  expect([ready, readyBody]).toEqual([200, `ok\nrevision ${c1}\n`]);
  let metrics = (await get(`${base}/metrics`))[1];
  expect(metrics).toContain(`cubeform_source_revision_info{revision="${c1}"} 1`);
  expect(metrics).toContain(`cubeform_source_applied_revision_info{revision="${c1}"} 1`);
  expect(metrics).toMatch(/^cubeform_source_failing 0$/m);

  // 2. A push: a round starts at once (the interval is 60 s), and the change is applied.
  const c2 = repo.commit({ "cubeform.yaml": pruned("web", "db") });
  let started = performance.now();
  expect((await githubPush(port)).status).toBe(200);
  await waitFor(async () => (await names()).includes("db"), { timeoutMs: 30_000, intervalMs: 20, message: "db created after the push" });
  const pushToApplied = performance.now() - started;
  await waitFor(() => watch.stdout().includes(`(commit ${c2.slice(0, 12)}): in sync`), {
    timeoutMs: 30_000,
    message: "the round of c2 finished",
  });
  const pushToInSync = performance.now() - started;

  // Unsigned, wrongly signed, or for another ref: 401 / ignored, and no round starts.
  const before = watch.stderr();
  expect(
    (await fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers: { "x-github-event": "push" }, body: '{"ref":"refs/heads/main"}' }))
      .status,
  ).toBe(401);
  expect((await githubPush(port, { secret: "wrong-secret" })).status).toBe(401);
  const other = await githubPush(port, { ref: "refs/heads/feature" });
  expect(other.status).toBe(200);
  expect(await other.json()).toMatchObject({ ignored: expect.stringContaining("refs/heads/feature") });
  expect(watch.stderr().slice(before.length)).not.toContain("starting a round");
  expect(watch.stderr()).toContain("refused a delivery: a github push with a missing or wrong signature");

  // 3. A broken commit: not applied, the last good stays, /status and metrics say so; the pod stays ready (in its Service).
  const c3 = repo.commit({ "cubeform.yaml": pruned("web", "db", "cache").replace("vcpu: 1", "vcpu: lots") });
  expect((await githubPush(port)).status).toBe(200);
  const source = await waitFor(
    async () => {
      const answer = JSON.parse((await get(`${base}/status`))[1]) as {
        source: { failing: boolean; error: string | null; fetchedRevision: string | null; lastGoodRevision: string | null };
      };
      return answer.source.failing ? answer.source : undefined;
    },
    { timeoutMs: 30_000, message: "the broken commit in /status" },
  );
  expect(source.error).toContain(`cubeform.yaml at commit ${c3.slice(0, 12)} is not valid`);
  expect(source.error).toMatch(/cubeform\.yaml:\d+:\d+: defaults\.resources\.vcpu/);
  expect(source).toMatchObject({ fetchedRevision: c3, lastGoodRevision: c2 });
  expect(await get(`${base}/readyz`)).toEqual([200, `ok\nrevision ${c3} (last good revision ${c2} stays applied)\n`]);
  metrics = (await get(`${base}/metrics`))[1];
  expect(metrics).toContain(`cubeform_source_revision_info{revision="${c3}"} 1`);
  expect(metrics).toContain(`cubeform_source_applied_revision_info{revision="${c2}"} 1`);
  expect(metrics).toMatch(/^cubeform_source_failing 1$/m);
  expect(watch.stderr()).toMatch(
    new RegExp(`round \\d+ \\(commit ${c3.slice(0, 12)}\\): the source failed: cubeform.yaml at commit ${c3.slice(0, 12)} is not valid`),
  );
  expect(await names()).toEqual(["db", "web"]);

  // 4. A fix applies.
  const c4 = repo.commit({ "cubeform.yaml": pruned("web", "db", "cache") });
  started = performance.now();
  expect((await githubPush(port)).status).toBe(200);
  await waitFor(async () => (await names()).includes("cache"), {
    timeoutMs: 30_000,
    intervalMs: 20,
    message: "cache created after the fix",
  });
  const fixToApplied = performance.now() - started;
  await waitFor(async () => (await get(`${base}/metrics`))[1].includes(`cubeform_source_applied_revision_info{revision="${c4}"} 1`), {
    timeoutMs: 30_000,
    message: "c4 applied",
  });
  expect((await get(`${base}/metrics`))[1]).toMatch(/^cubeform_source_failing 0$/m);

  // 5. A force-push back to c2: that state is applied (prune: true in it removes cache).
  repo.git("push", "--quiet", "--force", "origin", `${c2}:refs/heads/main`);
  expect((await githubPush(port)).status).toBe(200);
  await waitFor(async () => !(await names()).includes("cache"), { timeoutMs: 30_000, message: "cache deleted after the force-push" });
  await waitFor(() => watch.stdout().includes(`(commit ${c2.slice(0, 12)}): in sync`), {
    timeoutMs: 30_000,
    message: "in sync at c2 again",
  });

  // 6. The path is deleted: an error, and nothing is pruned although the last good file says prune: true.
  repo.git("reset", "--quiet", "--hard", c4);
  const c6 = repo.commit({ "cubeform.yaml": null, "README.md": "moved\n" });
  expect((await githubPush(port)).status).toBe(200);
  const missing = await waitFor(
    async () => {
      const answer = await get(`${base}/status`);
      return answer[1].includes(`commit ${c6.slice(0, 12)} has no`) ? answer[1] : undefined;
    },
    { timeoutMs: 30_000, message: "the commit without the path in /status" },
  );
  expect(missing).toContain(`commit ${c6.slice(0, 12)} has no cubeform.yaml (--path): nothing is applied and nothing pruned`);
  expect(await names()).toEqual(["db", "web"]);

  await stopWatch(watch);
  console.log(
    `watch --repo: push → cube created ${Math.round(pushToApplied)} ms, push → round in sync ${Math.round(pushToInSync)} ms; fixed commit push → applied ${Math.round(fixToApplied)} ms (interval 60000 ms)`,
  );
  expect(pushToApplied).toBeLessThan(10_000);
});

test("plan --repo names the commit in its header, in --format json, markdown and github (issue 21 item 3); -f with --repo is refused", {
  timeout: 60_000,
}, async () => {
  const { p, repo, first: commit } = await projectWithRepo({ "fleet/web.yaml": plainFleet("web") });
  const text = await p.run(["plan", "--repo", repo.url, "--path", "fleet", ...RATE], repo.env);
  expect(text.code, describeRun(text)).toBe(2);
  expect(text.stdout).toContain(`Source: ${repo.url} HEAD at commit ${commit} (fleet)`);
  const json = await p.run(["plan", "--repo", repo.url, "--ref", "main", "--path", "fleet", "--format", "json", ...RATE], repo.env);
  expect(json.code, describeRun(json)).toBe(2);
  expect(JSON.parse(json.stdout).source).toEqual({ repo: repo.url, ref: "main", revision: commit, path: "fleet" });
  const markdown = await p.run(["plan", "--repo", repo.url, "--ref", "main", "--path", "fleet", "--format", "markdown", ...RATE], repo.env);
  expect(markdown.stdout).toContain(
    `### cubeform plan\n\nSource: <code>${escapeMarkdown(repo.url)}</code> <code>main</code> at commit <code>${commit.slice(0, 12)}</code> (<code>fleet</code>)\n`,
  );
  const github = await p.run(["plan", "--repo", repo.url, "--path", "fleet", "--format", "github", ...RATE], repo.env);
  expect(github.stdout).toContain(`Source: ${repo.url} HEAD at commit ${commit} (fleet)`);
  const both = await p.run(["plan", "-f", "x.yaml", "--repo", repo.url], repo.env);
  expect(both.code).toBe(1);
  expect(both.stderr).toContain("-f and --repo name two sources");
});
