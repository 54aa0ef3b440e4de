/**
 * The cached clone of a repository is shared by every cubeform of the user (issue 21 item 7):
 * two processes started together on two refs of one repository (two terminals running
 * `validate --repo`) take turns on it under its lock, and each reads its own ref's commit.
 */
import { expect, test } from "vitest";
import { testRepo } from "../support/git.js";
import { describeRun, plainFleet, startBin, tempDir } from "./support.js";

test("issue 21 item 7: two processes on one repository's cached clone at once: neither fails, each loads its own ref's commit", {
  timeout: 120_000,
}, async () => {
  const repo = testRepo();
  const cwd = tempDir();
  for (let round = 1; round <= 4; round++) {
    const names = Array.from({ length: round }, (_, i) => `c${i}`);
    const commits = {
      a: repo.commit({ "cubeform.yaml": plainFleet(...names) }, "a", "a"),
      b: repo.commit({ "cubeform.yaml": plainFleet(...names, "extra") }, "b", "b"),
    };
    const runs = await Promise.all(
      (["a", "b"] as const).map((ref) => startBin(["validate", "--repo", repo.url, "--ref", ref], { cwd, env: repo.env }).exited),
    );
    for (const [i, ref] of (["a", "b"] as const).entries()) {
      const run = runs[i]!;
      expect(run.code, describeRun(run)).toBe(0);
      const n = round + (ref === "b" ? 1 : 0);
      expect(run.stdout).toBe(`ok: ${n} ${n === 1 ? "cube" : "cubes"} (cubeform.yaml at commit ${commits[ref]} of ${repo.url})\n`);
    }
  }
});
