import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";
import { editFleet } from "./support/edit.js";

test("--format json prints the Plan object for scripts", async ({ fx }) => {
  const r = await fx.cli(["plan", "--format", "json", ...FAST]);
  expect(r.exitCode).toBe(2);
  const plan = JSON.parse(r.stdout) as {
    formatVersion: number;
    changes: { address: string; action: string; after?: unknown }[];
    steps: { op: string; address: string; body?: unknown }[];
    summary: { add: number };
    priorState?: unknown;
  };
  expect(plan.formatVersion).toBe(5);
  expect(r.stdout.trimEnd()).not.toContain("\n");
  expect(plan.summary.add).toBe(7);
  expect(plan.changes.find((c) => c.address === "cube/db")?.action).toBe("create");
  expect(plan.changes.find((c) => c.address === "cube/db")?.after).toMatchObject({ name: "db" });
  expect(plan).not.toHaveProperty("priorState");
  // Steps name fields as the file does (formatVersion 2 used the API's domain, udpEnabled, whitelistedIps).
  const body = (address: string) => plan.steps.find((s) => s.address === address)?.body;
  expect(body("cube/web/domain/www.demo.example.com")).toEqual({ hostname: "www.demo.example.com", port: 8080, responseCompression: true });
  expect(body("cube/web/port/5432")).toEqual({ cubePort: 5432, label: "postgres", udp: false, allow: ["203.0.113.0/24", "198.51.100.7"] });
});

test("--format json (formatVersion 5) keeps one entry per address, on one line; noop entries carry no bodies", async ({ fx }) => {
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  const r = await fx.cli(["plan", "--format", "json", ...FAST]);
  expect(r.exitCode).toBe(0);
  const plan = JSON.parse(r.stdout) as { formatVersion: number; changes: Record<string, unknown>[]; summary: { mutations: number } };
  expect(plan.formatVersion).toBe(5);
  expect(r.stdout.trimEnd()).not.toContain("\n");
  expect(plan.summary.mutations).toBe(0);
  expect(plan.changes).toHaveLength(7);
  expect(new Set(plan.changes.map((c) => c.address)).size).toBe(7);
  for (const change of plan.changes) {
    expect(change).toMatchObject({ action: "noop", changes: [] });
    expect(typeof change.id).toBe("string");
    expect(change).not.toHaveProperty("before");
    expect(change).not.toHaveProperty("after");
  }
});

test("plan --out still saves the complete plan (formatVersion 4, priorState for the stale-plan message)", async ({ fx }) => {
  await fx.cli(["plan", "--out", "plan.json", "--format", "json", ...FAST]);
  const saved = JSON.parse(readFileSync(join(fx.cwd, "plan.json"), "utf8")) as {
    formatVersion: number;
    priorState?: unknown;
    changes: { before: unknown }[];
  };
  expect(saved.formatVersion).toBe(4);
  expect(saved.priorState).toMatchObject({ cubes: [] });
  expect(saved.changes.every((c) => "before" in c)).toBe(true);
});

test("plan --out of an in-sync space keeps the prior state and its digest, which the printed plan leaves out; a noop has no views", async ({
  fx,
}) => {
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  const printed = JSON.parse((await fx.cli(["plan", "--format", "json", ...FAST])).stdout) as {
    priorStateDigest?: string;
    changes: Record<string, unknown>[];
  };
  expect((await fx.cli(["plan", "--out", "plan.json", "--format", "json", ...FAST])).exitCode).toBe(0);
  const saved = JSON.parse(readFileSync(join(fx.cwd, "plan.json"), "utf8")) as {
    priorStateDigest: string;
    priorState?: { cubes: unknown[] };
    changes: Record<string, unknown>[];
  };
  expect(saved.changes).toHaveLength(7);
  for (const change of saved.changes) {
    expect(change.action).toBe("noop");
    expect(change).not.toHaveProperty("before");
    expect(change).not.toHaveProperty("after");
  }
  expect(saved.priorState?.cubes).toHaveLength(saved.changes.filter((c) => c.kind === "cube").length);
  expect(saved.priorStateDigest).toMatch(/^[0-9a-f]{64}$/);
  expect(printed).not.toHaveProperty("priorStateDigest");
  expect(
    printed.changes.map(({ address, kind, cubeName, id, action, changes }) => ({ address, kind, cubeName, id, action, changes })),
  ).toEqual(saved.changes.map(({ address, kind, cubeName, id, action, changes }) => ({ address, kind, cubeName, id, action, changes })));
});

test("--format markdown prints a table per kind", async ({ fx }) => {
  const r = await fx.cli(["plan", "--format", "markdown", ...FAST]);
  expect(r.exitCode).toBe(2);
  expect(r.stdout).toContain(
    "#### Cubes\n\n| | Address | Action | Details |\n| --- | --- | --- | --- |\n| `+` | <code>cube/web</code> | create |",
  );
  expect(r.stdout).toContain("#### Domains");
  expect(r.stdout).toContain("#### TCP ports");
  expect(r.stdout).toContain("**Plan: 7 to add, 0 to change, 0 to destroy.**");
  // Issue 31 item 20: a create lists what it sends (no "null →"), values unescaped where nothing could become markup.
  const web = r.stdout.split("\n").find((line) => line.includes("<code>cube/web</code>")) ?? "";
  expect(web).toContain("name: &quot;web&quot;; image: &quot;ubuntu-24.04&quot;");
  expect(r.stdout).not.toContain("null →");
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

// --target checks the named cubes in full and reads the others for their identity only
// (README: "plan --target"): a large file plans one cube without validating the rest.
test("--target: a problem in a cube no target names is not checked; the others still count as declared", async ({ fx }) => {
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  editFleet(fx.cwd, "  - name: worker\n    power: stopped", "  - name: worker\n    power: sleeping\n    colour: red");
  const targeted = await fx.cli(["plan", "--target", "db", "--format", "json", ...FAST]);
  expect(targeted.stderr).toBe("");
  expect(targeted.exitCode).toBe(0);
  const plan = JSON.parse(targeted.stdout) as { changes: { address: string; unmanaged?: boolean }[] };
  // web and worker are declared (not unmanaged) though left out of the plan.
  expect(plan.changes.map((c) => c.address)).toEqual(["cube/db", "cube/db/port/6379"]);
  const whole = await fx.cli(["plan", ...FAST]);
  expect(whole.exitCode).toBe(1);
  expect(whole.stderr).toContain("cubeform.yaml:34:12: cubes[1].power:");
  expect(whole.stderr).toContain('cubeform.yaml:35:5: cubes[1]: unknown key "colour"');
});

test("--target: a problem in a named cube is reported at its file:line:col as without --target; a YAML error anywhere is an error", async ({
  fx,
}) => {
  editFleet(fx.cwd, "  - name: db\n    terminationProtection: true", "  - name: db\n    terminationProtection: maybe");
  const whole = await fx.cli(["plan", ...FAST]);
  const targeted = await fx.cli(["plan", "--target", "db", ...FAST]);
  expect(whole.exitCode).toBe(1);
  expect(targeted.exitCode).toBe(1);
  expect(targeted.stderr).toContain("cubeform.yaml:37:28: cubes[2].terminationProtection:");
  expect(targeted.stderr).toBe(whole.stderr);
  editFleet(fx.cwd, "terminationProtection: maybe", "terminationProtection: true");
  editFleet(fx.cwd, "  - name: worker\n    power: stopped", "  - name: worker\n    power: [stopped");
  const broken = await fx.cli(["plan", "--target", "db", ...FAST]);
  expect(broken.exitCode).toBe(1);
  expect(broken.stderr).toMatch(/cubeform\.yaml:\d+:\d+: /);
});

test("--target: a cube declared twice is still an error", async ({ fx }) => {
  editFleet(fx.cwd, "  - name: worker\n", "  - name: web\n");
  const r = await fx.cli(["plan", "--target", "db", ...FAST]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/cubeform\.yaml:\d+:\d+: .*web/);
});
