/**
 * A large file's load is kept between runs (desired/load-cache.ts): a second plan of the
 * unchanged file uses it and prints the same plan; a change to the file, to an environment
 * variable it resolves, to a file it refers to, or to the --target names is a full load; no
 * password reaches the cache; small files, bad files and CUBEFORM_LOAD_CACHE=off keep nothing.
 * Real bin, real files, the embedded emulator (`--emulator`, state in the run's directory).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";
import { DiskLoadCache, MIN_CACHED_BYTES } from "../../desired/load-cache.js";
import { loadDesiredStateSync } from "../../desired/load.js";

const BIN = fileURLToPath(new URL("../../bin/cubeform.js", import.meta.url));
const temp = mkdtempSync(join(tmpdir(), "cubeform-load-cache-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const PASSWORD = "correct-horse-battery-staple";
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMpCyp4nE5zvDqG7tY7k3bq3Vg4m6i1QvXb9cT0w2XhN cache@cubeform";

/** A fleet of `cubes` cubes (past MIN_CACHED_BYTES at 400): an image from the environment, a key file, a password. */
function fleet(cubes: number, vcpu = 1): string {
  const lines = [
    "apiVersion: cubeform/v1",
    "defaults:",
    "  image: ${env:BASE_IMAGE}",
    `  resources: { vcpu: ${vcpu}, ramGb: 2, diskGb: 10 }`,
    "  sshPublicKeyFile: keys/id.pub",
    "cubes:",
  ];
  for (let i = 0; i < cubes; i++) {
    lines.push(`  - name: c${i}`, "    domains:", `      - hostname: www.c${i}.example.com`, "        port: 8080");
    if (i === 0) lines.push("        basicAuthUser: admin", "        basicAuthPassword: ${env:WEB_PASSWORD}");
    lines.push("    ports:", "      - cubePort: 5432", "        label: postgres", "        udp: false", "        allow: [10.0.0.0/8]");
  }
  return `${lines.join("\n")}\n`;
}

interface Run {
  status: number | null;
  plan: { changes: { address: string; action: string; after?: unknown }[] } | undefined;
  stderr: string;
  /** What the load cache said it did (CUBEFORM_DEBUG_LOAD). */
  cache: string[];
}

/** `env` adds to or (undefined) removes from the run's environment. */
function plan(dir: string, args: string[] = [], env: Record<string, string | undefined> = {}): Run {
  const run = spawnSync(process.execPath, [BIN, "plan", "--emulator", "-f", "fleet.yaml", "--format", "json", ...args], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: definedOnly({
      PATH: process.env.PATH ?? "",
      HOME: dir,
      XDG_CACHE_HOME: join(dir, "cache"),
      XDG_STATE_HOME: join(dir, "state"),
      CUBEFORM_DEBUG_LOAD: "1",
      BASE_IMAGE: "ubuntu-24.04",
      WEB_PASSWORD: PASSWORD,
      ...env,
    }),
  });
  const lines = run.stderr.split("\n");
  let parsed: Run["plan"];
  try {
    parsed = JSON.parse(run.stdout) as Run["plan"];
  } catch {
    parsed = undefined;
  }
  return {
    status: run.status,
    plan: parsed,
    stderr: lines.filter((l) => !l.startsWith("cubeform: ")).join("\n"),
    cache: lines.filter((l) => l.startsWith("cubeform: load cache: ")).map((l) => l.slice("cubeform: load cache: ".length)),
  };
}

const definedOnly = (env: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));

function space(name: string, yaml = fleet(400)): string {
  const dir = join(temp, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "keys"), { recursive: true });
  writeFileSync(join(dir, "keys", "id.pub"), `${KEY}\n`);
  writeFileSync(join(dir, "fleet.yaml"), yaml);
  return dir;
}

const entries = (dir: string): string[] => {
  try {
    return readdirSync(join(dir, "cache", "cubeform", "load-cache")).map((name) => join(dir, "cache", "cubeform", "load-cache", name));
  } catch {
    return [];
  }
};
const used = (run: Run): boolean => run.cache.some((line) => line.startsWith("used for fleet.yaml"));
const withoutDates = (run: Run): string => JSON.stringify(run.plan).replace(/"createdAt":"[^"]*"/g, "");

test("what is kept is JSON that reads back as exactly what the load answered (no undefined members, dates or classes)", () => {
  const dir = space("json");
  for (const file of [join(dir, "fleet.yaml"), fileURLToPath(new URL("../../examples/fleet.yaml", import.meta.url))]) {
    const { desired, secretEnvNames, envNames, cubePositions, cubeNames } = loadDesiredStateSync({
      file,
      cwd: dir,
      env: { BASE_IMAGE: "ubuntu-24.04", WEB_PASSWORD: PASSWORD },
    });
    const kept = { desired, secretEnvNames, envNames, cubePositions, cubeNames };
    expect(JSON.parse(JSON.stringify(kept))).toStrictEqual(kept);
  }
});

test("a large file: the first plan keeps its load, the second uses it and prints the same plan", () => {
  const dir = space("same");
  expect(readFileSync(join(dir, "fleet.yaml")).length).toBeGreaterThanOrEqual(MIN_CACHED_BYTES);
  const first = plan(dir);
  expect(first.status, first.stderr).toBe(2);
  expect(used(first)).toBe(false);
  expect(first.cache.some((line) => line.startsWith("kept fleet.yaml for the next run"))).toBe(true);
  const [entry] = entries(dir);
  expect((statSync(entry!).mode & 0o777).toString(8)).toBe("600");
  const second = plan(dir);
  expect(used(second)).toBe(true);
  expect(second.status).toBe(2);
  expect(withoutDates(second)).toBe(withoutDates(first));
  expect(second.plan?.changes.filter((c) => c.action === "create")).toHaveLength(1200);
});

test("no password, nor its hash, is kept; the environment variable of a password only has to be set", () => {
  const dir = space("password");
  plan(dir);
  const text = readFileSync(entries(dir)[0]!, "utf8");
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(createHash("sha256").update(PASSWORD).digest("hex"));
  expect(used(plan(dir, [], { WEB_PASSWORD: "another-password" }))).toBe(true);
  const unset = plan(dir, [], { WEB_PASSWORD: undefined });
  expect(used(unset)).toBe(false);
  expect(unset.status).toBe(1);
  expect(unset.stderr).toContain("WEB_PASSWORD");
});

test("a change to the file, to a resolved variable, to a referenced file or to the targets is a full load with its own result", () => {
  const dir = space("changes");
  const cold = plan(dir);
  expect(used(plan(dir))).toBe(true);

  const image = plan(dir, [], { BASE_IMAGE: "debian-13" });
  expect(used(image)).toBe(false);
  // The resolved image is redacted from output (issue 23 item 7); a stale load would print the old one, which this run does not know.
  expect(JSON.stringify(image.plan)).toContain('"image":"[REDACTED]"');
  expect(JSON.stringify(image.plan)).not.toContain("ubuntu-24.04");

  writeFileSync(join(dir, "keys", "id.pub"), `${KEY.replace("cache@", "other@")}\n`);
  const key = plan(dir);
  expect(used(key)).toBe(false);
  expect(JSON.stringify(key.plan)).toContain("other@cubeform");

  writeFileSync(join(dir, "fleet.yaml"), fleet(400, 2));
  const edited = plan(dir);
  expect(used(edited)).toBe(false);
  expect(JSON.stringify(edited.plan)).toContain('"vcpu":2');
  expect(withoutDates(edited)).not.toBe(withoutDates(cold));

  const targeted = plan(dir, ["--target", "c7"]);
  expect(used(targeted)).toBe(false);
  expect(targeted.plan?.changes.map((c) => c.address)).toEqual(["cube/c7", "cube/c7/domain/www.c7.example.com", "cube/c7/port/5432"]);
  expect(used(plan(dir, ["--target", "c7"]))).toBe(true);
});

test("a bad file keeps nothing and is reported at its position even when a good version of it was kept", () => {
  const dir = space("bad");
  plan(dir);
  writeFileSync(join(dir, "fleet.yaml"), fleet(400).replace("        port: 8080\n", "        port: eighty\n"));
  const bad = plan(dir);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/^fleet\.yaml:10:15: /m);
  expect(used(bad)).toBe(false);
});

test("a damaged entry is ignored and written again; small files and CUBEFORM_LOAD_CACHE=off keep nothing", () => {
  const dir = space("damaged");
  const first = plan(dir);
  writeFileSync(entries(dir)[0]!, '{"format":1,"source":');
  const damaged = plan(dir);
  expect(damaged.cache).toContain("not used for fleet.yaml: damaged");
  expect(withoutDates(damaged)).toBe(withoutDates(first));
  expect(used(plan(dir))).toBe(true);

  const small = space("small", fleet(3));
  expect(plan(small).status).toBe(2);
  expect(entries(small)).toEqual([]);

  const off = space("off");
  expect(plan(off, [], { CUBEFORM_LOAD_CACHE: "off" }).status).toBe(2);
  expect(entries(off)).toEqual([]);
});

test("an entry keeps the ${env:…} reference, not its value nor its plain hash, and reads back the current value", () => {
  const dir = space("reference");
  const file = join(dir, "fleet.yaml");
  const secretImage = "image-from-the-environment-7f3a";
  const env = { BASE_IMAGE: secretImage, WEB_PASSWORD: PASSWORD };
  const said: string[] = [];
  const cache = new DiskLoadCache(join(dir, "cache", "cubeform", "load-cache"), "test-build", (line) => said.push(line));
  const first = loadDesiredStateSync({ file, cwd: dir, env, diskCache: cache });
  const text = readFileSync(entries(dir)[0]!, "utf8");
  expect(text).toContain('"image":"${env:BASE_IMAGE}"');
  expect(text).not.toContain(secretImage);
  expect(text).not.toContain(createHash("sha256").update(secretImage).digest("hex"));
  said.length = 0;
  const again = loadDesiredStateSync({ file, cwd: dir, env, diskCache: cache });
  expect(said.join("\n")).toContain("used for");
  expect(again.desired).toStrictEqual(first.desired);
  expect(again.desired.cubes[0]?.image).toBe(secretImage);
});

test("an entry whose body does not match its header is a miss", () => {
  const dir = space("tampered");
  plan(dir);
  const [entry] = entries(dir);
  writeFileSync(entry!, readFileSync(entry!, "utf8").replace('"name":"c1"', '"name":"c1x"'));
  const run = plan(dir);
  expect(run.cache).toContain("not used for fleet.yaml: damaged");
  expect(run.plan?.changes.some((c) => c.address === "cube/c1x")).toBe(false);
});

test("an entry whose body matches its digest but not the outline of a load is a miss too", () => {
  const dir = space("outline");
  plan(dir);
  const [entry] = entries(dir);
  const [headerLine] = readFileSync(entry!, "utf8").split("\n", 1);
  const body = JSON.stringify({ desired: { cubes: {} }, cubePositions: {}, secretEnvNames: [], envNames: [], cubeNames: [] });
  const header = { ...(JSON.parse(headerLine!) as Record<string, unknown>), body: crc32(body).toString(16).padStart(8, "0") };
  writeFileSync(entry!, `${JSON.stringify(header)}\n${body}`);
  const run = plan(dir);
  expect(run.cache).toContain("not used for fleet.yaml: damaged");
  expect(run.status).toBe(2);
});

test("another build of cubeform replaces the file's entry rather than adding its own, and does not use the old one", () => {
  const dir = space("builds");
  const file = join(dir, "fleet.yaml");
  const env = { BASE_IMAGE: "ubuntu-24.04", WEB_PASSWORD: PASSWORD };
  const { desired, secretEnvNames, envNames, cubePositions, cubeNames } = loadDesiredStateSync({ file, cwd: dir, env });
  const kept = { desired, secretEnvNames, envNames, cubePositions, cubeNames };
  const key = { file: "fleet.yaml", absPath: file };
  const source = readFileSync(file);
  const cacheDir = join(dir, "cache", "cubeform", "load-cache");
  const traces: string[] = [];
  const cacheOf = (build: string) => new DiskLoadCache(cacheDir, build, (line) => traces.push(`${build}: ${line}`));
  const inputs = { env, reads: new Map([[join(dir, "keys", "id.pub"), `${KEY}\n`]]) };

  cacheOf("build-1").store(key, source, inputs, kept);
  expect(cacheOf("build-1").lookup(key, { text: () => source }, env)?.cubeNames).toEqual(cubeNames);
  expect(cacheOf("build-2").lookup(key, { text: () => source }, env)).toBeUndefined();
  expect(traces).toContain("build-2: not used for fleet.yaml: the build of cubeform changed");
  cacheOf("build-2").store(key, source, inputs, kept);
  expect(readdirSync(cacheDir)).toHaveLength(1);
  expect(cacheOf("build-2").lookup(key, { text: () => source }, env)?.cubeNames).toEqual(cubeNames);
  expect(cacheOf("build-1").lookup(key, { text: () => source }, env)).toBeUndefined();
});

test("a settled file is known unchanged by its stat; a write that keeps its size and time is still seen, and a fresh file is hashed", () => {
  const dir = space("stamps");
  const file = join(dir, "fleet.yaml");
  const env = { BASE_IMAGE: "ubuntu-24.04", WEB_PASSWORD: PASSWORD };
  const said: string[] = [];
  const cacheDir = join(dir, "cache", "cubeform", "load-cache");
  // A clock a minute ahead: the file's last change is STAMP_SETTLED_MS old to it.
  const later = new DiskLoadCache(
    cacheDir,
    "test-build",
    (line) => said.push(line),
    () => Date.now() + 60_000,
  );
  const load = (cache: DiskLoadCache) => loadDesiredStateSync({ file, cwd: dir, env, diskCache: cache });

  load(later);
  said.length = 0;
  expect(load(later).desired.cubes[0]?.resources.vcpu).toBe(1);
  expect(said.join("\n")).toMatch(/^used for .*fleet\.yaml .*unchanged by its stat/m);

  // Same length, and its modification time put back: only the change time (ctime) tells.
  const { mtime } = statSync(file);
  writeFileSync(file, fleet(400, 2));
  utimesSync(file, mtime, mtime);
  said.length = 0;
  expect(load(later).desired.cubes[0]?.resources.vcpu).toBe(2);
  expect(said.join("\n")).toMatch(/^not used for .*fleet\.yaml: the file changed/m);

  // With the real clock the file was written just now: its stat may not stand for it, its digest does.
  const now = new DiskLoadCache(cacheDir, "test-build", (line) => said.push(line));
  writeFileSync(file, fleet(400, 1));
  load(now);
  expect(JSON.parse(readFileSync(entries(dir)[0]!, "utf8").split("\n", 1)[0]!)).not.toHaveProperty("stamp");
  said.length = 0;
  expect(load(now).desired.cubes[0]?.resources.vcpu).toBe(1);
  expect(said.join("\n")).toMatch(/^used for .*fleet\.yaml .*unchanged by its digest/m);

  // Once the file has settled, the entry learns its stamp the first time it is used.
  said.length = 0;
  load(later);
  expect(said.join("\n")).toMatch(/^used for .*fleet\.yaml .*unchanged by its digest/m);
  said.length = 0;
  expect(load(later).desired.cubes[0]?.resources.vcpu).toBe(1);
  expect(said.join("\n")).toMatch(/^used for .*fleet\.yaml .*unchanged by its stat/m);
});
