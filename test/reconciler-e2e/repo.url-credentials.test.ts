/**
 * Issue 32 item 4: a credential in any form of --repo URL (scp-like user:password@ or a token as the user, a query string,
 * a token in the path, percent-encoded) is refused before git runs: it reaches neither git's argv nor any message.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { testRepo } from "../support/git.js";
import { describeRun, startBin, tempDir } from "./support.js";

const SECRET = "S3cr3tValue0123456789";

test("issue 32 item 4: credentials in every URL form are refused before git runs, and never repeated", { timeout: 60_000 }, async () => {
  const repo = testRepo();
  const cwd = tempDir();
  const urls = [
    `git:ghp_${SECRET}@127.0.0.1:r.git`,
    `ghp_${SECRET}@127.0.0.1:r.git`,
    `git:${SECRET}@127.0.0.1:r.git`,
    `x${SECRET}${SECRET}@127.0.0.1:r.git`,
    `http://127.0.0.1:9/r.git?private_token=${SECRET}`,
    `https://git.example.com/r.git?access_token=${SECRET}`,
    `https://git.example.com/r.git?x=1&%70rivate_token=${SECRET}`,
    `ssh://${SECRET}${SECRET}@127.0.0.1/r.git`,
    `ssh://%67hp_${SECRET}@127.0.0.1/r.git`,
    `https://git.example.com/glpat-${SECRET}/r.git`,
  ];
  for (const url of urls) {
    const run = await startBin(["validate", "--repo", url], { cwd, env: repo.env }).exited;
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr, url).toContain("put no credentials in the URL");
    expect(run.stdout + run.stderr, url).not.toContain(SECRET);
  }
  // No git ran: nothing was cloned.
  expect(existsSync(join(repo.env.XDG_CACHE_HOME as string, "cubeform", "git"))).toBe(false);
});
