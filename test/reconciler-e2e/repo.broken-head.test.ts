/**
 * Issue 31 item 9: a broken head is located. An unclosed quote is reported where it opens (not at the end of the file, where
 * the parser gave up), and `plan --repo --format json` on a broken head names the commit that failed in `source`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { testRepo } from "../support/git.js";
import { describeRun, plainFleet, startBin, tempDir } from "./support.js";

/** 12 lines; the quote of web's name opens on line 8, column 11, and never closes. */
const UNCLOSED = `${plainFleet("db")}  - name: "web\n    image: ubuntu-24.04\n  - name: cache\n  - name: queue\n  - name: worker\n`;

test("issue 31 item 9: an unclosed quote is located where it opens, in a file and at a commit; plan --format json names the failing commit", {
  timeout: 60_000,
}, async () => {
  expect(UNCLOSED.split("\n").length - 1).toBe(12);
  expect(UNCLOSED.split("\n")[7]).toBe('  - name: "web');
  const cwd = tempDir();
  writeFileSync(join(cwd, "cubeform.yaml"), UNCLOSED);
  const local = await startBin(["validate", "-f", "cubeform.yaml"], { cwd, env: {} }).exited;
  expect(local.code, describeRun(local)).toBe(1);
  expect(local.stderr).toContain('cubeform.yaml:8:11: Missing closing "quote');

  const repo = testRepo();
  const good = repo.commit({ "cubeform.yaml": plainFleet("db", "web") });
  expect(good).toMatch(/^[0-9a-f]{40}$/);
  const broken = repo.commit({ "cubeform.yaml": UNCLOSED });
  const plan = await startBin(["plan", "--repo", repo.url, "--format", "json"], { cwd, env: repo.env }).exited;
  expect(plan.code, describeRun(plan)).toBe(1);
  const report = JSON.parse(plan.stdout) as {
    valid: boolean;
    problems: { file: string; line: number; col: number; message: string }[];
    source?: unknown;
  };
  expect(report.valid).toBe(false);
  expect(report.problems[0]).toMatchObject({ line: 8, col: 11, message: 'Missing closing "quote' });
  expect(report.source).toEqual({ repo: repo.url, ref: "HEAD", revision: broken, path: "cubeform.yaml" });
  expect(plan.stderr).toContain(`cubeform.yaml at commit ${broken.slice(0, 12)}`);
});
