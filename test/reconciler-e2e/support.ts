/**
 * The CLI as users run it: the built bin in a child process, pointed at an emulator started in
 * the test process through CUBE_API_URL / CUBE_API_KEY.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, onTestFinished } from "vitest";
import { createClient } from "../../client/index.js";
import type { CubeApi } from "../../client/api.js";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { testCacheHome } from "../support/cache-home.js";
import { testRepo, type TestRepo } from "../support/git.js";
import { listenUntilTestEnds } from "../support/listen.js";
import { waitFor } from "../support/wait.js";

export const BIN = fileURLToPath(new URL("../../bin/cubeform.js", import.meta.url));
export const FAST_LIMIT = { limit: 1000, windowMs: 60_000 };
/** Tells the CLI the emulator's limit, so its pacing never waits. */
export const RATE = ["--rate-limit", "1000/60"];
export const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp e2e@cubeform";

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running child: its output so far, and a promise of how it ended. */
export interface Child {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<Finished>;
}

export interface Project {
  emu: RunningEmulator;
  /** Out-of-band changes and checks, as another person or tool would make them. */
  api: CubeApi;
  cwd: string;
  env: Record<string, string>;
  start(args: string[], env?: Record<string, string>): Child;
  run(args: string[], env?: Record<string, string>): Promise<Finished>;
  mutations(): number;
}

/** An emulator, a temp project with `files`, and the bin pointed at both; torn down after the test. */
export async function project(files: Record<string, string> = {}): Promise<Project> {
  const emu = await startEmulator({ clockSpeed: 200, rateLimit: FAST_LIMIT });
  const cwd = tempDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
  const api = createClient({ baseUrl: emu.url, apiKey: emu.apiKey, spaceId: emu.spaceId, rateLimit: FAST_LIMIT });
  // The lock and the shared pacing window live in the user's state directory: one per project,
  // so parallel test runs (ours and other people's on this machine) never share them.
  const env = { CUBE_API_URL: emu.url, CUBE_API_KEY: emu.apiKey, XDG_STATE_HOME: tempDir() };
  const children: Child[] = [];
  onTestFinished(async () => {
    for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
    await Promise.all(children.map((c) => c.exited));
    await api.close();
    await emu.close();
  });
  const start = (args: string[], extra: Record<string, string> = {}): Child => {
    const child = startBin(args, { cwd, env: { ...env, ...extra } });
    children.push(child);
    return child;
  };
  return {
    emu,
    api,
    cwd,
    env,
    start,
    run: (args, extra) => start(args, extra).exited,
    mutations: () => emu.admin.requests().filter((r) => r.mutating).length,
  };
}

/** A test repository whose first commit holds `files`, and a project to reconcile it into. */
export async function projectWithRepo(
  files: Record<string, string>,
): Promise<{ p: Project; repo: TestRepo /** The first commit. */; first: string }> {
  const repo = testRepo();
  const first = repo.commit(files);
  return { p: await project(), repo, first };
}

/** This test file's state directory (locks, pacing window) unless a test passes its own. */
export function testStateHome(): string {
  stateHome ??= mkdtempSync(join(tmpdir(), "cubeform-state-"));
  return stateHome;
}
let stateHome: string | undefined;
process.on("exit", () => stateHome && rmSync(stateHome, { recursive: true, force: true }));

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-e2e-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function startBin(args: string[], options: { cwd: string; env: Record<string, string> }): Child {
  const env = { PATH: process.env.PATH ?? "", NO_COLOR: "1", XDG_STATE_HOME: testStateHome(), ...testCacheHome(), ...options.env };
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Finished>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { process: child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** The failing child's output makes a failed assertion readable. */
export function describeRun(run: Finished): string {
  return `exit ${run.code ?? run.signal}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}

export { waitFor };

/** A fleet file's first lines, up to `cubes:`: every cube gets the small defaults and SSH_KEY. */
export const FLEET_HEADER = `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  sshPublicKey: ${SSH_KEY}
cubes:
`;

/** Cubes with these names and nothing but the defaults. */
export function plainFleet(...names: string[]): string {
  return FLEET_HEADER + names.map((name) => `  - name: ${name}\n`).join("");
}

/** A group "web" of replicas on `image`, rolled out with an HTTP health check against `healthUrl` (a test's server on 127.0.0.1). */
export function rolloutFleet(
  image: string,
  healthUrl: string,
  group: { replicas: number; maxUnavailable: number; healthyFor: string; deadline: string; allowReplace?: boolean },
): string {
  return `apiVersion: cubeform/v1
defaults:
  image: ${image}
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  sshPublicKey: ${SSH_KEY}
cubes:
  - name: web
    replicas: ${group.replicas}
${group.allowReplace ? "    lifecycle: { allowReplace: true }\n" : ""}    rollout:
      maxUnavailable: ${group.maxUnavailable}
      healthCheck:
        http: { url: "${healthUrl}" }
        healthyFor: ${group.healthyFor}
        deadline: ${group.deadline}
`;
}

/** A small fleet: "web" with a wildcard and a plain domain and a port, "db" with a port. */
export const FLEET = `${FLEET_HEADER}  - name: web
    domains:
      - hostname: "*.e2e.example.com"
        port: 8080
      - hostname: www.e2e.example.com
        port: 8080
        responseCompression: true
    ports:
      - { cubePort: 5432, label: postgres, udp: false, allow: [203.0.113.0/24] }
  - name: db
    terminationProtection: true
    ports:
      - cubePort: 6379
        label: redis
`;

export const APPLY = ["apply", "--auto-approve", ...RATE, "--poll-interval", "20"];

/**
 * Two applies of `p` started together, their first create held on the wire until one of them is seen waiting for
 * the space's lock; both must exit 0. `env` gives each run its own variables.
 */
export async function twoAppliesOnOneLock(p: Project, env: () => Record<string, string> = () => ({})): Promise<Finished[]> {
  const proxy = await holdingProxy(p.emu, (method, path) => method === "POST" && path.endsWith("/cubes"));
  const runs = [p.start(APPLY, { CUBE_API_URL: proxy.url, ...env() }), p.start(APPLY, { CUBE_API_URL: proxy.url, ...env() })];
  await proxy.held;
  await waitFor(() => runs.some((r) => r.stdout().includes("Waiting for the lock of space")), {
    timeoutMs: 15_000,
    message: "the other run to wait for the lock",
  });
  await proxy.release();
  const finished = await Promise.all(runs.map((r) => r.exited));
  for (const run of finished) expect(run.code, describeRun(run)).toBe(0);
  return finished;
}

export interface HoldingProxy {
  /** Base URL of the API through the proxy (…/api/v1). */
  url: string;
  /** Resolves when a request matching `hold` arrived; it is not forwarded until release(). */
  held: Promise<void>;
  /** Forwards the held request now and answers its client, if it is still there; resolves with the API's status. */
  release(): Promise<number>;
}

/**
 * A pass-through proxy to the emulator that holds back one request, as a slow network would:
 * the client has sent it, the API has not seen it yet.
 */
export async function holdingProxy(
  emu: RunningEmulator,
  hold: (method: string, path: string, body: string) => boolean,
): Promise<HoldingProxy> {
  let onHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  let heldRequest: { method: string; path: string; headers: Record<string, string>; body: string } | undefined;
  let heldResponse: ServerResponse | undefined;
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const request = { method: req.method ?? "GET", path: req.url ?? "/", headers: forwardable(req.headers), body };
    if (heldRequest === undefined && hold(request.method, request.path, body)) {
      heldRequest = request;
      heldResponse = res;
      onHeld();
      return;
    }
    answer(res, await forward(emu, request));
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    held,
    release: async () => {
      if (heldRequest === undefined) throw new Error("no request is held");
      const forwarded = await forward(emu, heldRequest);
      if (heldResponse !== undefined && !heldResponse.destroyed) answer(heldResponse, forwarded);
      return forwarded.status;
    },
  };
}

/** Starts `server` on a free port of 127.0.0.1 and closes it (and its open connections) when the test ends. */
export async function listenOnLoopback(server: Server): Promise<number> {
  return Number(new URL(await listenUntilTestEnds(server)).port);
}

function answer(res: ServerResponse, forwarded: { status: number; contentType: string; text: string }): void {
  res.writeHead(forwarded.status, { "content-type": forwarded.contentType });
  res.end(forwarded.text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += (chunk as Buffer).toString();
  return body;
}

function forwardable(headers: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string" && !["host", "connection", "content-length", "keep-alive"].includes(name)) out[name] = value;
  }
  return out;
}

async function forward(
  emu: RunningEmulator,
  request: { method: string; path: string; headers: Record<string, string>; body: string },
): Promise<{ status: number; contentType: string; text: string }> {
  const hasBody = request.method !== "GET" && request.method !== "HEAD" && request.body !== "";
  const response = await fetch(`${emu.origin}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(hasBody ? { body: request.body } : {}),
  });
  return { status: response.status, contentType: response.headers.get("content-type") ?? "application/json", text: await response.text() };
}

/** Idempotency keys of creates that were written to the journal and never settled, by address. */
export function journalKeys(cwd: string): Record<string, string> {
  const path = join(cwd, ".cubeform", "journal.json");
  if (!existsSync(path)) return {};
  const entries = JSON.parse(readFileSync(path, "utf8")) as Record<string, { key: string }>;
  const keys: Record<string, string> = {};
  for (const [id, entry] of Object.entries(entries)) keys[id.split(" ")[1] ?? id] = entry.key;
  return keys;
}

/** Creates cube `name` through the API, out of band (as another person or tool would): the small defaults and SSH_KEY. */
export function createPlainCube(api: CubeApi, name: string, idempotencyKey = name): ReturnType<CubeApi["createCube"]> {
  return api.createCube(
    { name, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey },
  );
}

/** How many live cubes carry each name. */
export async function cubeNameCounts(api: CubeApi): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const cube of await api.listCubes()) if (cube.state !== "deleted") counts[cube.name] = (counts[cube.name] ?? 0) + 1;
  return counts;
}
