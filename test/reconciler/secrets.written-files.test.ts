/**
 * Nothing cubeform writes holds a value resolved from `${env:…}`: a large file (past the load
 * cache's threshold) with a secret in every cube's userData and a basic-auth password; plan twice
 * (the second from the load cache), plan --out, apply the saved plan; then every file under the
 * run's home, cache, state and config directories and the project is searched for the values and
 * their plain sha256. The emulator's own store (the API's data) is the one file left out.
 * A saved plan made with one value is refused when the variable holds another.
 * Every run has a proxy with a user and password in HTTPS_PROXY; every file and both streams of
 * every run are searched for them too (issue 32 item 6), and a second test sends a plan through
 * that proxy (HTTP_PROXY) when it echoes the request's headers back.
 * Real bin, real files, the embedded emulator (and a loopback one behind the proxy).
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";
import { SSH_KEY } from "./support/cli.js";
import { startEmulator } from "../../emulator/index.js";
import { startForwardProxy } from "../support/forward-proxy.js";

const BIN = fileURLToPath(new URL("../../bin/cubeform.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "cubeform-secrets-written-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DB_PASSWORD = "db-s3cret-9f2c61d7e0";
const WEB_PASSWORD = "web-s3cret-41aa07c3bd";
const CUBES = 8;
/** A proxy's user and password, URL-encoded in the variable as curl and git take them. */
const PROXY_USER = "ops";
const PROXY_PASSWORD = "pr0xy s3cret@9";
const proxyUrl = (port: number | string) => `http://${PROXY_USER}:${encodeURIComponent(PROXY_PASSWORD)}@127.0.0.1:${port}`;
/** The password in every form a request or a message could hold it: decoded, URL-encoded, and the Basic header's base64. */
const PROXY_FORMS = [PROXY_PASSWORD, encodeURIComponent(PROXY_PASSWORD), Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString("base64")];

function fleet(): string {
  const filler = Array.from({ length: 300 }, (_, i) => `  - echo line ${i} of the setup script`).join("\n");
  const lines = [
    "apiVersion: cubeform/v1",
    "defaults:",
    "  image: ubuntu-24.04",
    "  resources: { vcpu: 1, ramGb: 2, diskGb: 10 }",
    `  sshPublicKey: ${SSH_KEY}`,
    "cubes:",
  ];
  for (let i = 0; i < CUBES; i++) {
    lines.push(
      `  - name: app${i}`,
      "    userData: |",
      "      #cloud-config",
      "      write_files:",
      "        - path: /etc/app/db",
      "          content: password=${env:DB_PASSWORD}",
      "      runcmd:",
      filler.replace(/^/gm, "    "),
    );
    lines.push(
      "    domains:",
      `      - hostname: app${i}.example.com`,
      "        port: 8080",
      "        basicAuthUser: admin",
      "        basicAuthPassword: ${env:WEB_PASSWORD}",
    );
  }
  return `${lines.join("\n")}\n`;
}

const home = join(dir, "home");
const env = (overrides: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "",
  HOME: home,
  XDG_CACHE_HOME: join(dir, "cache"),
  XDG_STATE_HOME: join(dir, "state"),
  XDG_CONFIG_HOME: join(dir, "config"),
  CUBEFORM_DEBUG_LOAD: "1",
  DB_PASSWORD,
  WEB_PASSWORD,
  // Never used (the embedded emulator is not reached through a proxy), never printed or written.
  HTTPS_PROXY: proxyUrl(9),
  ...overrides,
});

/** stdout and stderr of every run, searched at the end like the files. */
const streams: string[] = [];

const RATE_FLAGS = ["--rate-limit", "1000/60"];

function cubeform(args: string[], overrides: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [BIN, ...args, "--emulator", "--rate-limit", "1000/60"], {
    cwd: join(dir, "project"),
    encoding: "utf8",
    env: env(overrides),
    maxBuffer: 64 * 1024 * 1024,
  });
  streams.push(run.stdout, run.stderr);
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

test("no value of ${env:…} nor its hash is in any file cubeform writes; a saved plan is refused when a value changed", () => {
  mkdirSync(join(dir, "project"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(dir, "project", "cubeform.yaml"), fleet());
  expect(statSync(join(dir, "project", "cubeform.yaml")).size).toBeGreaterThan(64 * 1024);

  const first = cubeform(["plan"]);
  expect(first.status, first.stderr).toBe(2);
  expect(first.stderr).toContain("load cache: kept cubeform.yaml");
  expect(cubeform(["plan"]).stderr).toContain("load cache: used for cubeform.yaml");
  expect(cubeform(["plan", "--out", "plan.json"]).status).toBe(2);
  expect(readFileSync(join(dir, "project", "plan.json"), "utf8")).toContain("password=${env:DB_PASSWORD}");

  const stale = cubeform(["apply", "plan.json"], { DB_PASSWORD: "another-value" });
  expect(stale.status).toBe(1);
  expect(stale.stderr).toContain("refusing to apply plan.json: the file's ${env:DB_PASSWORD} has another value");
  const applied = cubeform(["apply", "plan.json"]);
  expect(applied.status, applied.stderr).toBe(0);
  expect(cubeform(["plan"]).status).toBe(0);

  const written = [home, join(dir, "cache"), join(dir, "state"), join(dir, "config"), join(dir, "project")].flatMap((root) => {
    try {
      return filesUnder(root);
    } catch {
      return [];
    }
  });
  const kinds = written.map((path) => path.slice(dir.length));
  expect(kinds.some((path) => path.includes("load-cache"))).toBe(true);
  expect(kinds.some((path) => path.endsWith("plan.json"))).toBe(true);
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
  const secrets = [DB_PASSWORD, WEB_PASSWORD, sha256(DB_PASSWORD), sha256(WEB_PASSWORD), sha256(`password=${DB_PASSWORD}`), ...PROXY_FORMS];
  for (const path of written.filter((path) => !path.endsWith("emulator-state.json"))) {
    const text = readFileSync(path, "latin1");
    for (const secret of secrets) expect(text.includes(secret), `${path.slice(dir.length)} holds ${secret}`).toBe(false);
  }
  expect(streams.length).toBe(12);
  for (const [i, text] of streams.entries()) {
    for (const secret of secrets)
      expect(text.includes(secret), `${i % 2 === 0 ? "stdout" : "stderr"} of run ${Math.floor(i / 2) + 1} holds ${secret}`).toBe(false);
  }
}, 120_000); // six runs of the bin, one after the other

/** The bin without blocking this process (the emulator and the proxy answer from it). */
function cubeformAsync(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

test("issue 32 item 6: a proxy that echoes the request's headers: neither its credentials (raw, URL-encoded, base64) nor the API key reach any stream or file", async () => {
  const emulator = await startEmulator({ rateLimit: { limit: 1000, windowMs: 60_000 } });
  try {
    const proxy = await startForwardProxy({ echoHeaders: true });
    const root = join(dir, "echo");
    mkdirSync(join(root, "project"), { recursive: true });
    writeFileSync(join(root, "project", "cubeform.yaml"), fleet());
    const runEnv = {
      ...env(),
      HOME: join(root, "home"),
      XDG_CACHE_HOME: join(root, "cache"),
      XDG_STATE_HOME: join(root, "state"),
      XDG_CONFIG_HOME: join(root, "config"),
    };
    const proxied = {
      ...runEnv,
      HTTPS_PROXY: "",
      CUBE_API_URL: emulator.url,
      CUBE_API_KEY: emulator.apiKey,
      HTTP_PROXY: proxyUrl(new URL(proxy.url).port),
      CUBEFORM_PROXY_LOOPBACK: "1",
    };
    const runs = [
      await cubeformAsync(["plan", ...RATE_FLAGS], proxied, join(root, "project")),
      await cubeformAsync(["cube", "list", ...RATE_FLAGS], proxied, join(root, "project")),
    ];
    // The proxy was asked with the credentials, and its answer echoed them.
    expect(proxy.authorizations[0]).toBe(`Basic ${PROXY_FORMS[2]}`);
    for (const run of runs) {
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("proxy-authorization");
      expect(run.stderr).toContain("[REDACTED]");
    }
    const files = ["home", "cache", "state", "config", "project"].flatMap((sub) => {
      try {
        return filesUnder(join(root, sub));
      } catch {
        return [];
      }
    });
    const texts = [...runs.flatMap((run) => [run.stdout, run.stderr]), ...files.map((path) => readFileSync(path, "latin1"))];
    for (const text of texts) for (const secret of [...PROXY_FORMS, emulator.apiKey]) expect(text).not.toContain(secret);
  } finally {
    await emulator.close();
  }
}, 60_000);
