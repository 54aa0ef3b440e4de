import { expect, test } from "vitest";
import { describeRun, startBin, tempDir } from "./support.js";

test("demo applies the example fleet to the embedded emulator, prints the DNS records and a clean second plan", async () => {
  // From an unrelated directory: the example is found relative to the package, not the cwd.
  const run = await startBin(["demo"], { cwd: tempDir(), env: {} }).exited;
  expect(run.code, describeRun(run)).toBe(0);
  expect(run.stdout).toContain("Plan: 7 to add, 0 to change, 0 to destroy.");
  // Issue 31 item 20: the demo's plan says what the fleet costs, as plan does.
  expect(run.stdout.replace(/\n {2}/g, " ")).toMatch(/\nCost: \+\d+\.\d\d EUR\/month \(fleet 0\.00 → \d+\.\d\d EUR\/month; 730 h\/month/);
  expect(run.stdout).toContain("Applied 10 of 10 steps; 8 API mutations sent.");
  expect(run.stdout).toMatch(/_acme-challenge\.demo\.example\.com\s+\S+\.acme\.krova\.cloud\s+not published yet\s+DNS only \(grey cloud\)/);
  expect(run.stdout).toMatch(/CNAME\s+www\.demo\.example\.com\s+dns\.krova\.cloud\s+not published yet\s+may be proxied/);
  expect(run.stdout).toContain("No changes. Your fleet matches the file.");
  // What a new user types next works from the clone (cubeform is on no PATH there: npx finds it).
  expect(run.stdout).toContain("run `npx --no-install cubeform plan --emulator`");
  expect(run.stderr).toBe("");
});

test("demo is repeatable: a second run starts from an empty space again", async () => {
  const cwd = tempDir();
  for (let i = 0; i < 2; i++) {
    const run = await startBin(["demo"], { cwd, env: {} }).exited;
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toContain("Plan: 7 to add");
  }
});
