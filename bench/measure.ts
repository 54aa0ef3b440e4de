/** Child processes for the benchmarks: the emulator, and timed cubeform runs. */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { BenchEmulatorOptions, BenchEmulatorReady, BenchStats } from "./emulator-process.js";
import { BUILT_CLI, ROOT } from "./build.js";

export const WORK_DIR = join(ROOT, "bench", ".work");
/** XDG_CACHE_HOME of every measured run: the CLI keeps its code cache there. */
export const CODE_CACHE_HOME = join(WORK_DIR, "cache");
const PRELOAD = join(ROOT, "bench", "rss-preload.mjs");

export interface EmulatorChild extends BenchEmulatorReady {
  stats(): Promise<BenchStats>;
  resetStats(): Promise<void>;
  admin(method: string, path: string, body?: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

export function startEmulatorProcess(options: BenchEmulatorOptions, extraNodeArgs: string[] = []): Promise<EmulatorChild> {
  return startServerProcess("emulator-process.ts", options, extraNodeArgs);
}

async function startServerProcess(script: string, options: object, extraNodeArgs: string[]): Promise<EmulatorChild> {
  const child = spawn(process.execPath, [...extraNodeArgs, "--import", "tsx", join(ROOT, "bench", script), JSON.stringify(options)], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await new Promise<BenchEmulatorReady>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once("line", (line) => resolve(JSON.parse(line) as BenchEmulatorReady));
    child.once("exit", (code) => reject(new Error(`${script} exited early (code ${code})`)));
  });
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${ready.origin}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  return {
    ...ready,
    stats: async () => (await call("GET", "/__bench/stats")) as BenchStats,
    resetStats: async () => void (await call("POST", "/__bench/reset")),
    admin: (method, path, body) => call(method, `/__emulator${path}`, body),
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export interface CliRun {
  exitCode: number | null;
  wallMs: number;
  maxRssKb: number | null;
  userMs: number | null;
  systemMs: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env: Record<string, string>;
  /** Extra node flags, e.g. ["--cpu-prof", "--cpu-prof-dir", dir]. */
  nodeArgs?: string[];
  timeoutMs?: number;
  cwd?: string;
}

/**
 * Runs `node bin/cubeform.js ARGS` (the transpiled copy) and times it from spawn to exit:
 * wall time includes Node's start-up and module loading, as a user sees it.
 */
export function runCli(args: string[], options: CliRunOptions): Promise<CliRun> {
  return runNode([BUILT_CLI, ...args], options);
}

/** The bare read floor (bench/floor/read-floor.mjs, a copy of shared/bench): the plan's reads and nothing else. */
export const READ_FLOOR = join(ROOT, "bench", "floor", "read-floor.mjs");

export interface FloorRun extends CliRun {
  reads: number;
  cubes: number;
}

/** The plan's reads alone with exactly N requests in flight (bench/floor/reads-in-flight.mjs). */
export const READS_IN_FLIGHT = join(ROOT, "bench", "floor", "reads-in-flight.mjs");

/** Runs the read floor (or another such script) against a server, measured exactly like a cubeform run. */
export async function runFloor(
  server: { url: string; apiKey: string; spaceId: string },
  concurrency = 32,
  script = READ_FLOOR,
): Promise<FloorRun> {
  const run = await runNode([script, server.url, server.apiKey, server.spaceId, String(concurrency)], { env: {}, timeoutMs: 300_000 });
  const line = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}") as { reads?: number; cubes?: number };
  return { ...run, reads: line.reads ?? 0, cubes: line.cubes ?? 0 };
}

/**
 * Runs `node ARGS` with the usage preload (peak RSS and CPU at exit), timed from spawn to
 * exit. `node -e 0` is runNode(["-e", "0"]).
 */
export async function runNode(args: string[], options: CliRunOptions): Promise<CliRun> {
  const cwd = options.cwd ?? WORK_DIR;
  mkdirSync(cwd, { recursive: true });
  const usageFile = join(WORK_DIR, `usage-${process.pid}-${Date.now()}.json`);
  rmSync(usageFile, { force: true });
  // The CLI's code cache (bin/bundle-loader.js) in bench/.work, not the user's.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NO_COLOR: "1",
    XDG_CACHE_HOME: CODE_CACHE_HOME,
    ...options.env,
    BENCH_USAGE_FILE: usageFile,
  };
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "--import", PRELOAD, ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (b: Buffer) => out.push(b));
  child.stderr.on("data", (b: Buffer) => err.push(b));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
  const exitCode = await new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const wallMs = performance.now() - started;
  clearTimeout(timer);
  const usage = existsSync(usageFile)
    ? (JSON.parse(readFileSync(usageFile, "utf8")) as { maxRssKb: number; userMs: number; systemMs: number })
    : undefined;
  rmSync(usageFile, { force: true });
  return {
    exitCode,
    wallMs,
    maxRssKb: usage?.maxRssKb ?? null,
    userMs: usage?.userMs ?? null,
    systemMs: usage?.systemMs ?? null,
    stdout: Buffer.concat(out).toString("utf8"),
    stderr: Buffer.concat(err).toString("utf8"),
  };
}

/** CPU time (user + system) a running process and its waited-for children have used so far, from /proc (Linux); null elsewhere. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime, stime, cutime and cstime are fields 14 to 17 of stat (11 to 14 after the command
    // name), in clock ticks: the children's (a --repo round's git) count too.
    return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** sysconf(_SC_CLK_TCK): 100 on every Linux that Node supports. */
const CLOCK_TICKS = 100;

export interface WatchRounds {
  /** CPU per round (ms), between consecutive "round N" lines, after the first round. */
  roundCpuMs: number[];
  stdout: string;
  stderr: string;
}

/**
 * Runs `cubeform watch ARGS` until `rounds` rounds have been reported after the first, and
 * reads the process's CPU time at each "round N:" line (each round's CPU plus an idle sleep).
 */
export async function watchRounds(args: string[], rounds: number, options: CliRunOptions): Promise<WatchRounds> {
  const child = spawn(process.execPath, [BUILT_CLI, "watch", ...args], {
    cwd: options.cwd ?? WORK_DIR,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const marks: number[] = [];
  const done = new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      stdout += `${line}\n`;
      if (!/\] round \d+( \(commit \w+\))?: /.test(line)) return;
      const cpu = processCpuMs(child.pid ?? 0);
      if (cpu !== null) marks.push(cpu);
      if (marks.length > rounds) resolve();
    });
    child.once("exit", (code) => reject(new Error(`watch exited early (code ${code}): ${stderr.slice(0, 1000)}`)));
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 300_000);
  try {
    await done;
  } finally {
    clearTimeout(timer);
    await stopChild(child);
  }
  return { roundCpuMs: marks.slice(1).map((m, i) => m - (marks[i] ?? 0)), stdout, stderr };
}

/** bench/floor/latency-proxy.mjs (a copy of shared/bench's): a TCP proxy holding each chunk `delayMs` each way. */
export const LATENCY_PROXY = join(ROOT, "bench", "floor", "latency-proxy.mjs");

export interface LatencyProxy {
  /** The emulator's API base URL through the proxy. */
  url: string;
  stop(): Promise<void>;
}

export async function startLatencyProxy(server: { url: string }, delayMs: number): Promise<LatencyProxy> {
  const upstream = new URL(server.url);
  const child = spawn(process.execPath, [LATENCY_PROXY, upstream.port, String(delayMs)], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`latency-proxy.mjs exited early (code ${code})`)));
  });
  return { url: `http://127.0.0.1:${port.trim()}${upstream.pathname}`, stop: () => stopChild(child) };
}

/** The median round trip of one small GET on a kept-alive connection, `samples` times in a row. */
export async function roundTripMs(baseUrl: string, apiKey: string, samples = 31): Promise<number> {
  const { Agent, request } = await import("undici");
  const dispatcher = new Agent({ connections: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      const res = await request(`${baseUrl}/space`, { headers: { "x-api-key": apiKey }, dispatcher });
      await res.body.text();
      times.push(performance.now() - started);
    }
  } finally {
    await dispatcher.close();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? NaN;
}
