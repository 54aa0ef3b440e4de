/**
 * The CLI as users run it: the built bin in a child process, pointed at an emulator started in
 * the test process through CUBE_API_URL / CUBE_API_KEY.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import { createClient } from "../../client/index.js";
import type { CubeApi } from "../../client/api.js";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
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
  const env = { CUBE_API_URL: emu.url, CUBE_API_KEY: emu.apiKey };
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
  return { emu, api, cwd, env, start, run: (args, extra) => start(args, extra).exited, mutations: () => emu.admin.requests().filter((r) => r.mutating).length };
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-e2e-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function startBin(args: string[], options: { cwd: string; env: Record<string, string> }): Child {
  const env = { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...options.env };
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

/** A small fleet: "web" with a wildcard and a plain domain and a port, "db" with a port. */
export const FLEET = `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  sshPublicKey: ${SSH_KEY}
cubes:
  - name: web
    domains:
      - hostname: "*.e2e.example.com"
        port: 8080
      - hostname: www.e2e.example.com
        port: 8080
        responseCompression: true
    ports:
      - cubePort: 5432
        label: postgres
        udp: false
        allow: [203.0.113.0/24]
  - name: db
    terminationProtection: true
    ports:
      - cubePort: 6379
        label: redis
`;

export const APPLY = ["apply", "--auto-approve", ...RATE, "--poll-interval", "20"];
