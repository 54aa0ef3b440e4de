/**
 * The bin keeps V8's code cache of the bundle's chunks in the user's cache directory
 * (bin/bundle-loader.js): a second run uses it; a damaged, stale or unwritable cache changes
 * nothing the user sees.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";
import { FLEET_YAML } from "./support/fixtures.js";

const BIN = fileURLToPath(new URL("../../bin/cubeform.js", import.meta.url));
const temp = mkdtempSync(join(tmpdir(), "cubeform-code-cache-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface Run {
  status: number | null;
  stdout: string;
  /** stderr without the CUBEFORM_DEBUG_LOAD lines. */
  stderr: string;
  /** What the cache did for each chunk loaded, by chunk: used, none, damaged, rejected or off. */
  cache: Record<string, string>;
  written: boolean;
}

/** One run of `cubeform validate -f FILE` with its cache in cacheHome. */
function validate(cacheHome: string, file = FLEET_YAML, env: Record<string, string> = {}): Run {
  return cli(cacheHome, ["validate", "-f", file], env);
}

function cli(cacheHome: string, args: string[], env: Record<string, string> = {}): Run {
  const run = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    env: { XDG_CACHE_HOME: cacheHome, CUBEFORM_DEBUG_LOAD: "1", ...env },
  });
  const lines = run.stderr.split("\n");
  const cache = Object.fromEntries(
    lines.flatMap((line) => [/^cubeform: load (\S+) \(code cache: (\w+)\)$/.exec(line)?.slice(1, 3) ?? []]).filter((m) => m.length === 2),
  );
  return {
    status: run.status,
    stdout: run.stdout,
    stderr: lines.filter((line) => !line.startsWith("cubeform: ")).join("\n"),
    cache,
    written: lines.some((line) => line.startsWith("cubeform: code cache written to ")),
  };
}

/** The cache files of the one bundle the runs wrote, by name. */
function cacheFiles(cacheHome: string): string[] {
  const root = join(cacheHome, "cubeform", "code-cache");
  const [bundle, ...others] = readdirSync(root);
  expect(others).toEqual([]);
  expect(bundle).toMatch(new RegExp(`^\\w+-node${process.versions.node}-${process.arch}$`));
  return readdirSync(join(root, bundle!)).map((name) => join(root, bundle!, name));
}

const BAD_FILE = join(temp, "bad.yaml");
writeFileSync(BAD_FILE, "apiVersion: cubeform/v1\ncubes:\n  - name: -bad-\n    image: ubuntu-24.04\n");

test("the first run writes the cache of every chunk it loads; the next run uses all of them, with the same output", () => {
  const home = join(temp, "fresh");
  const first = validate(home);
  expect(first.status).toBe(0);
  expect(Object.values(first.cache).length).toBeGreaterThan(3);
  expect(new Set(Object.values(first.cache))).toEqual(new Set(["none"]));
  expect(first.written).toBe(true);
  expect(cacheFiles(home)).toHaveLength(Object.keys(first.cache).length);

  const second = validate(home);
  expect(second).toMatchObject({ status: 0, stdout: first.stdout, stderr: first.stderr, written: false });
  expect(Object.keys(second.cache)).toEqual(Object.keys(first.cache));
  expect(new Set(Object.values(second.cache))).toEqual(new Set(["used"]));

  // Error positions and messages come out the same from cached code.
  const badFresh = validate(join(temp, "fresh-bad"), BAD_FILE);
  const badCached = validate(home, BAD_FILE);
  expect(badCached.status).toBe(1);
  expect(badCached.stderr).toMatch(/bad\.yaml:3:\d+: cubes\[0\]\.name: /);
  expect(badCached).toMatchObject({ status: badFresh.status, stdout: badFresh.stdout, stderr: badFresh.stderr });
});

test("a damaged or stale cache file is ignored and written again; the output does not change", () => {
  const home = join(temp, "damaged");
  const clean = validate(home);
  const files = cacheFiles(home).sort((a, b) => statSync(b).size - statSync(a).size);
  // The largest (zod's chunk): a few bytes of the V8 data changed, its header left whole.
  const [large, other, third] = files as [string, string, string];
  const bytes = readFileSync(large);
  bytes.fill(0x5a, bytes.length >> 1, (bytes.length >> 1) + 64);
  writeFileSync(large, bytes);
  // Another: not a cache file at all. A third: a whole, valid cache, but of another chunk.
  writeFileSync(other, "not a code cache");
  writeFileSync(third, readFileSync(files[3]!));

  const after = validate(home);
  expect(after).toMatchObject({ status: 0, stdout: clean.stdout, stderr: clean.stderr, written: true });
  const states = Object.values(after.cache);
  expect(states.filter((s) => s === "damaged")).toHaveLength(2);
  expect(states.filter((s) => s === "rejected")).toHaveLength(1);
  expect(states.filter((s) => s === "used")).toHaveLength(states.length - 3);

  const again = validate(home);
  expect(new Set(Object.values(again.cache))).toEqual(new Set(["used"]));
  expect(again.stdout).toBe(clean.stdout);
});

test("a cache directory that cannot be written to, or CUBEFORM_CODE_CACHE=off, changes nothing but the cache", () => {
  const reference = validate(join(temp, "reference"));
  // A file where the directory should be: nothing can be created under it (even as root).
  const blocked = join(temp, "blocked");
  writeFileSync(blocked, "a file, not a directory");
  for (let i = 0; i < 2; i++) {
    const run = validate(blocked);
    expect(run).toMatchObject({ status: 0, stdout: reference.stdout, stderr: reference.stderr, written: false });
    expect(new Set(Object.values(run.cache))).toEqual(new Set(["none"]));
  }
  expect(readFileSync(blocked, "utf8")).toBe("a file, not a directory");

  const offHome = join(temp, "off");
  const off = validate(offHome, FLEET_YAML, { CUBEFORM_CODE_CACHE: "off" });
  expect(off).toMatchObject({ status: 0, stdout: reference.stdout, stderr: reference.stderr, written: false });
  expect(new Set(Object.values(off.cache))).toEqual(new Set(["off"]));
  expect(() => statSync(offHome)).toThrow();
});

test("writing a cache removes the caches of other versions that no run has written to for 30 days", () => {
  const home = join(temp, "versions");
  const root = join(home, "cubeform", "code-cache");
  const old = join(root, "0123456789abcdef0123-node18.0.0-x64");
  const recent = join(root, "fedcba9876543210fedc-node20.0.0-x64");
  for (const dir of [old, recent]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "main.cjs.v8"), "old");
  }
  const longAgo = new Date(Date.now() - 40 * 24 * 3600 * 1000);
  utimesSync(old, longAgo, longAgo);
  expect(validate(home).written).toBe(true);
  expect(readdirSync(root)).toContain("fedcba9876543210fedc-node20.0.0-x64");
  expect(readdirSync(root)).not.toContain("0123456789abcdef0123-node18.0.0-x64");
  expect(readdirSync(root)).toHaveLength(2);
});

test("a command that reaches the API runs under other V8 flags (bin/cubeform.js) and keeps a cache of its own: alternating it with validate, every run uses its cache", () => {
  const home = join(temp, "alternating");
  const project = join(temp, "alternating-project");
  mkdirSync(project);
  copyFileSync(FLEET_YAML, join(project, "cubeform.yaml"));
  const plan = () => cli(home, ["plan", "--emulator", "-f", join(project, "cubeform.yaml")]);
  validate(home);
  const firstPlan = plan();
  expect(firstPlan.status).toBe(2);
  const again = [validate(home), plan(), validate(home), plan()];
  for (const run of again) {
    expect(Object.keys(run.cache).length).toBeGreaterThan(3);
    expect(new Set(Object.values(run.cache))).toEqual(new Set(["used"]));
    expect(run.written).toBe(false);
  }
  expect(again[1]).toMatchObject({ status: 2, stderr: firstPlan.stderr });
  expect(
    readdirSync(join(home, "cubeform", "code-cache"))
      .map((name) => name.replace(/^\w+-/, ""))
      .sort(),
  ).toEqual([`node${process.versions.node}-${process.arch}`, `node${process.versions.node}-${process.arch}-liftoff-only`]);
});
