/**
 * `watch --apply --repo --allowed-signers` (issue 21 item 6): a commit without a signature by an
 * allowed key is not applied, and is reported like a broken commit (the round's log and /status
 * name the commit, cubeform_source_failing is 1; /readyz stays 200: issue 31 item 3) while the
 * last good one is still enforced; the next
 * commit signed by an allowed key applies. Real keys (ssh-keygen) and signed commits.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { sshKeyPair, testRepo } from "../support/git.js";
import { describeRun, plainFleet, project, tempDir, waitFor } from "./support.js";
import { fetchText, metricsBase, stopWatch, watchArgs } from "./support/watch.js";

test("issue 21 item 6: watch --allowed-signers applies signed commits only; an unsigned or foreign-signed one is reported in /status, naming the commit", {
  timeout: 120_000,
}, async () => {
  const repo = testRepo();
  const dir = tempDir();
  const [allowed, other] = [sshKeyPair(dir, "allowed"), sshKeyPair(dir, "other")];
  const signers = join(dir, "allowed_signers");
  writeFileSync(signers, `fleet@example.com ${allowed.pub}\n`);
  const commit = (key: string | undefined, ...names: string[]): string => {
    repo.git("config", "gpg.format", "ssh");
    repo.git("config", "commit.gpgsign", String(key !== undefined));
    if (key !== undefined) repo.git("config", "user.signingkey", key);
    return repo.commit({ "cubeform.yaml": plainFleet(...names) });
  };
  const p = await project();
  const names = async (): Promise<string[]> => (await p.api.listCubes()).map((c) => c.name).sort();
  const c1 = commit(allowed.key, "web");
  const watch = p.start(watchArgs("300ms", "--apply", "--repo", repo.url, "--allowed-signers", signers), repo.env);
  const base = await metricsBase(watch);
  const readyz = (): Promise<[number, string]> => fetchText(`${base}/readyz`);
  await waitFor(async () => (await readyz())[0] === 200 && (await names()).includes("web"), {
    timeoutMs: 60_000,
    message: `c1 applied\n${watch.stderr()}`,
  });

  for (const [key, why] of [
    [undefined, "it is not signed"],
    [other.key, "it is not signed by a key in that file"],
  ] as const) {
    const refused = commit(key, "web", "db");
    const source = await waitFor(
      async () => {
        const answer = (await (await fetch(`${base}/status`)).json()) as {
          source: { failing: boolean; error: string | null; fetchedRevision: string | null; lastGoodRevision: string | null };
        };
        return answer.source.failing && answer.source.fetchedRevision === refused ? answer.source : undefined;
      },
      { timeoutMs: 30_000, message: `the refused ${refused} in /status\n${watch.stderr()}` },
    );
    expect(source.error).toContain(`commit ${refused.slice(0, 12)} is refused by --allowed-signers ${signers}: ${why}`);
    expect(source.lastGoodRevision).toBe(c1);
    expect(await readyz()).toEqual([200, `ok\nrevision ${refused} (last good revision ${c1} stays applied)\n`]);
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^cubeform_source_failing 1$/m);
    expect(watch.stderr()).toMatch(
      new RegExp(`round \\d+ \\(commit ${refused.slice(0, 12)}\\): the source failed: commit ${refused.slice(0, 12)} is refused`),
    );
    expect(await names()).toEqual(["web"]);
  }
  const oneShot = await p.run(["validate", "--repo", repo.url, "--allowed-signers", signers], repo.env);
  expect(oneShot.code, describeRun(oneShot)).toBe(1);
  expect(oneShot.stderr).toContain("is refused by --allowed-signers");

  const c4 = commit(allowed.key, "web", "db", "cache");
  await waitFor(async () => (await names()).includes("cache") && (await readyz())[1] === `ok\nrevision ${c4}\n`, {
    timeoutMs: 60_000,
    message: `c4 applied\n${watch.stderr()}`,
  });
  expect((await readyz())[1]).toBe(`ok\nrevision ${c4}\n`);
  await stopWatch(watch);
});
