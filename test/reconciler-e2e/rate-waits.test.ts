import { expect, test } from "vitest";
import { describeRun, plainFleet, project } from "./support.js";

const THREE_CUBES = plainFleet("a", "b", "c");

test("paced mutations: one line per wait, naming the step, the limit and the seconds", async () => {
  const p = await project({ "cubeform.yaml": THREE_CUBES });
  p.emu.admin.setRateLimit({ limit: 1, windowMs: 2000 });
  const run = await p.run(["apply", "--auto-approve", "--rate-limit", "1/2", "--poll-interval", "20"]);
  expect(run.code, describeRun(run)).toBe(0);
  const waits = run.stderr.split("\n").filter((line) => line.startsWith("Rate limit"));
  expect(waits, describeRun(run)).toHaveLength(2);
  expect(waits[0]).toMatch(/^Rate limit \(1 mutation per 2 s\): waiting [12] s before create-cube cube\/b \(POST \S+\)\.$/);
  expect(waits[1]).toMatch(/^Rate limit \(1 mutation per 2 s\): waiting [12] s before create-cube cube\/c \(POST \S+\)\.$/);
  expect(run.stderr).not.toContain("\r");
  expect(run.stdout).not.toContain("Rate limit (");
});

test("a 429 from the API: one line saying how long until the request is sent again", async () => {
  const p = await project({ "cubeform.yaml": THREE_CUBES.replace("  - name: c\n", "") });
  p.emu.admin.setRateLimit({ limit: 1, windowMs: 2000 });
  // The CLI is told a higher limit than the API's: the API answers 429 with Retry-After.
  const run = await p.run(["apply", "--auto-approve", "--rate-limit", "1000/60", "--poll-interval", "20"]);
  expect(run.code, describeRun(run)).toBe(0);
  const lines = run.stderr.split("\n").filter((line) => line.includes("429"));
  expect(lines, describeRun(run)).toHaveLength(1);
  expect(lines[0]).toMatch(
    /^The API answered 429 \(rate limited\) to POST \S+: waiting [12] s before sending it again \(create-cube cube\/b\)\.$/,
  );
});
