import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, test } from "./support/fixtures.js";

test("--format json prints the Plan object for scripts", async ({ fx }) => {
  const r = await fx.cli(["plan", "--format", "json", ...FAST]);
  expect(r.exitCode).toBe(2);
  const plan = JSON.parse(r.stdout) as { formatVersion: number; changes: { address: string; action: string }[]; summary: { add: number } };
  expect(plan.formatVersion).toBe(1);
  expect(plan.summary.add).toBe(7);
  expect(plan.changes.find((c) => c.address === "cube/db")?.action).toBe("create");
});

test("--format markdown prints a table per kind", async ({ fx }) => {
  const r = await fx.cli(["plan", "--format", "markdown", ...FAST]);
  expect(r.exitCode).toBe(2);
  expect(r.stdout).toContain("#### Cubes\n\n| | Address | Action | Details |\n| --- | --- | --- | --- |\n| `+` | `cube/web` | create |");
  expect(r.stdout).toContain("#### Domains");
  expect(r.stdout).toContain("#### TCP ports");
  expect(r.stdout).toContain("**Plan: 7 to add, 0 to change, 0 to destroy.**");
});

test("--format github annotates the cubes' lines and writes the step summary", async ({ fx }) => {
  const summary = join(fx.cwd, "summary.md");
  const r = await fx.cli(["plan", "--format", "github", ...FAST], { env: { GITHUB_STEP_SUMMARY: summary } });
  expect(r.exitCode).toBe(2);
  expect(r.stdout).toContain("::warning file=cubeform.yaml,line=18,col=5::cube/web: missing (will be created)\n");
  expect(r.stdout).toContain("::warning file=cubeform.yaml,line=36,col=5::cube/db/port/6379: missing (will be created)\n");
  expect(r.stdout).toContain("Plan: 7 to add, 0 to change, 0 to destroy.");
  expect(readFileSync(summary, "utf8")).toContain("### cubeform plan");
});

test("plan exits 1 with one line when the API refuses the key", async ({ fx }) => {
  const r = await fx.cli(["plan", ...FAST], { env: { CUBE_API_KEY: "kro_wrong_key_123456" } });
  expect(r.exitCode).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).toMatch(/^Error: .*401.*\n$/);
  expect(r.stderr).not.toContain("kro_wrong_key_123456");
});

test("without a key, plan names CUBE_API_KEY and --emulator", async ({ fx }) => {
  const r = await fx.cli(["plan"], { env: { CUBE_API_KEY: "" } });
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^Error: .*CUBE_API_KEY.*--emulator.*\n$/);
});

test("a bad --rate-limit is a clear error", async ({ fx }) => {
  const r = await fx.cli(["plan", "--rate-limit", "ten"]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^Error: --rate-limit must look like N\/SECONDS.*"ten"/);
});

test("--help shows examples", async ({ fx }) => {
  const r = await fx.cli(["plan", "--help"]);
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain("Examples:");
  expect(r.stdout).toContain("Exit codes: 0 in sync, 2 changes, 1 error.");
});

test("--target limits the plan to the named cubes", async ({ fx }) => {
  const r = await fx.cli(["plan", "--target", "db", "--target", "worker", ...FAST]);
  expect(r.exitCode).toBe(2);
  expect(r.stdout).not.toContain("cube/web");
  expect(r.stdout).toContain("+ cube/db ");
  expect(r.stdout).toContain("+ cube/worker ");
});
