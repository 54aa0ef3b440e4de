/**
 * Issue 31 item 6: a signed forge push replayed 100 times (a new X-GitHub-Delivery each, as a
 * captured delivery sent again) starts at most 2 rounds; a retry under the same delivery id starts
 * none; a new push (another body) still starts one. The built bin against the emulator, the
 * repository read through file://, the metrics port counting rounds.
 */
import { randomUUID } from "node:crypto";
import { expect, test } from "vitest";
import { plainFleet, projectWithRepo, waitFor } from "./support.js";
import { githubPush, roundsTotal, startRepoWatch, stopWatch } from "./support/watch.js";

/** Rounds finished, and whether one is under way (/status). */
async function rounds(base: string): Promise<{ finished: number; running: boolean }> {
  const finished = await roundsTotal(base);
  const status = (await (await fetch(`${base}/status`)).json()) as { lastRound: { outcome: string } | null };
  return { finished, running: status.lastRound?.outcome === "running" };
}

/** Once no round runs and the count holds over two reads (rounds take well under the 60 s interval, so only pushes start them). */
async function settledRounds(base: string): Promise<number> {
  let last = -1;
  return waitFor(
    async () => {
      const now = await rounds(base);
      const settled = !now.running && now.finished === last ? now.finished : undefined;
      last = now.running ? -1 : now.finished;
      return settled;
    },
    { timeoutMs: 30_000, intervalMs: 200, message: "rounds to settle" },
  );
}

test("100 replays of one signed GitHub push start at most 2 rounds; a redelivery starts none; a new push starts one", {
  timeout: 120_000,
}, async () => {
  const { p, repo, first: c1 } = await projectWithRepo({ "cubeform.yaml": plainFleet("web") });
  const { child: watch, base, port } = await startRepoWatch(p, repo.url, { interval: "60s", env: repo.env });
  await waitFor(() => watch.stdout().includes(`(commit ${c1.slice(0, 12)}): in sync`), { timeoutMs: 60_000, message: "the first round" });
  const before = await settledRounds(base);

  const c2 = repo.commit({ "cubeform.yaml": plainFleet("web", "db") });
  const body = JSON.stringify({ ref: "refs/heads/main", before: c1, after: c2, repository: { default_branch: "main" } });
  const answers: unknown[] = [];
  const firstId = randomUUID();
  for (let i = 0; i < 100; i++) answers.push(await (await githubPush(port, { body, deliveryId: i === 0 ? firstId : randomUUID() })).json());
  await waitFor(() => watch.stdout().includes(`(commit ${c2.slice(0, 12)}): in sync`), {
    timeoutMs: 30_000,
    message: "the pushed commit applied",
  });
  const afterReplays = await settledRounds(base);
  console.log(`100 replays of one signed push: ${afterReplays - before} rounds started`);
  expect(afterReplays - before).toBeLessThanOrEqual(2);
  expect(answers.filter((a) => (a as { duplicate?: boolean }).duplicate === true)).toHaveLength(99);
  expect(watch.stderr().match(/github push to refs\/heads\/main: starting a round/g)).toHaveLength(1);
  expect(watch.stderr()).toContain("dropped a github push seen before");

  // A delivery id seen before, with a body signed anew (a retry): acknowledged, nothing started.
  const again = await githubPush(port, { body: body.replace("}}", " }}"), deliveryId: firstId });
  expect(await again.json()).toEqual({ received: true, duplicate: true });

  // A new push (another commit, another body) is not a replay: it starts a round.
  const c3 = repo.commit({ "cubeform.yaml": plainFleet("web", "db", "cache") });
  const next = await githubPush(port, {
    body: JSON.stringify({ ref: "refs/heads/main", before: c2, after: c3, repository: { default_branch: "main" } }),
    deliveryId: randomUUID(),
  });
  expect(await next.json()).toEqual({ received: true });
  await waitFor(() => watch.stdout().includes(`(commit ${c3.slice(0, 12)}): in sync`), {
    timeoutMs: 30_000,
    message: "the new push applied",
  });

  await stopWatch(watch);
});
