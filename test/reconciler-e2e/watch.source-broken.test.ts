/**
 * source.broken says where the source is broken (FILE:LINE:COL), for --repo and for local files alike; a local file that breaks after a
 * good load is told once per distinct error while its last good load stays enforced. The real CLI, the emulator, a receiver on 127.0.0.1.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { testRepo } from "../support/git.js";
import { startReceiver, type Receiver } from "../support/notify-receiver.js";
import { plainFleet, project, waitFor, type Child } from "./support.js";
import { metricsBase, roundsTotal, stopWatch, watchArgs } from "./support/watch.js";

const WATCH = watchArgs("200ms");

const broken = (receiver: Receiver): { summary: string; details: { error: string; brokenRevision: string | null } }[] =>
  receiver
    .accepted()
    .map((r) => r.body as never)
    .filter((b: { type: string }) => b.type === "source.broken");

async function moreRounds(child: Child, n: number): Promise<void> {
  const base = await metricsBase(child);
  const start = await roundsTotal(base);
  await waitFor(async () => (await roundsTotal(base)) >= start + n, { timeoutMs: 60_000, message: `${n} more rounds` });
}

test("watch -f: a local file that breaks after a good load sends source.broken with FILE:LINE:COL, once per distinct error, and the last good load stays enforced", {
  timeout: 180_000,
}, async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web") });
  const receiver = await startReceiver();
  const watch = p.start([...WATCH, "--apply", "--notify", receiver.url]);
  await waitFor(() => watch.stdout().includes(": in sync"), { timeoutMs: 60_000, message: "watch in sync" });

  writeFileSync(join(p.cwd, "cubeform.yaml"), "apiVersion: cubeform/v1\ncubes: [\n");
  await waitFor(() => broken(receiver).length >= 1, { timeoutMs: 60_000, message: "source.broken" });
  await moreRounds(watch, 6);
  writeFileSync(join(p.cwd, "cubeform.yaml"), `${plainFleet("web")}  - name: db\n    vcpu: lots\n`);
  await waitFor(() => broken(receiver).length >= 2, { timeoutMs: 60_000, message: "a second source.broken for a different error" });
  await moreRounds(watch, 6);

  const events = broken(receiver);
  expect(events, "one per distinct error, not one per round").toHaveLength(2);
  for (const event of events) {
    expect(event.details.brokenRevision).toBeNull();
    expect(event.details.error).toMatch(/cubeform\.yaml:\d+:\d+: /);
  }
  expect(events[0]!.details.error).not.toBe(events[1]!.details.error);
  // The last good load (web) was enforced all along: a round on the broken file still ends in sync.
  expect(watch.stderr()).toContain("reconciling the files as they last loaded");
  expect((await p.api.listCubes()).map((c) => c.name)).toEqual(["web"]);
  await stopWatch(watch);
});

test("watch --repo: source.broken for a broken commit carries FILE:LINE:COL", { timeout: 180_000 }, async () => {
  const p = await project();
  const repo = testRepo();
  repo.commit({ "cubeform.yaml": plainFleet("web") });
  const receiver = await startReceiver();
  const watch = p.start([...WATCH, "--repo", repo.url, "--notify", receiver.url], repo.env);
  await waitFor(() => /changes? pending|in sync/.test(watch.stdout()), { timeoutMs: 60_000, message: "a first round" });
  const commit = repo.commit({ "cubeform.yaml": "apiVersion: cubeform/v1\ncubes: [\n" });
  await waitFor(() => broken(receiver).length >= 1, { timeoutMs: 60_000, message: "source.broken" });
  const [event] = broken(receiver);
  expect(event!.details.brokenRevision).toBe(commit);
  expect(event!.details.error).toMatch(/cubeform\.yaml:\d+:\d+: /);
  await stopWatch(watch);
});
