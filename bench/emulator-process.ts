/**
 * The emulator as a separate process for the benchmarks, so the process being measured holds
 * only cubeform's memory. It is the real emulator's HTTP path — the core handler behind the
 * same node:http listener startEmulator uses (emulator/server.ts) — with a counter wrapped
 * around the handler: every request it answers, by method, by kind of read, by status, with
 * no cap. (The emulator's own request log keeps only its last 10,000 entries;
 * admin.requestCounts() counts by method only.) The admin surface stays under /__emulator.
 *
 *   node --import tsx bench/emulator-process.ts '{"rateLimit":{"limit":1000000,"windowMs":1000}}'
 *
 * Prints one JSON line {url, origin, apiKey, spaceId} once listening. Bench-only routes:
 *   GET  /__bench/stats   counters since the last reset (BenchStats)
 *   POST /__bench/reset   zero the counters
 * SIGTERM/SIGINT close the emulator (flushing its state file) and end the process normally
 * (so --cpu-prof profiles are written).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { assembleEmulator } from "../emulator/assemble.js";
import type { Handle } from "../emulator/handler.js";
import type { EmulatorOptions } from "../emulator/index.js";
import { httpListener } from "../emulator/server.js";

export interface BenchEmulatorOptions {
  rateLimit?: { limit: number; windowMs: number };
  clockSpeed?: number;
  defaultPageSize?: number;
  apiKey?: string;
  spaceId?: string;
  /** A state file to load (and keep saving to), e.g. one written by seedStateFile. */
  statePath?: string;
}

export interface BenchEmulatorReady {
  url: string;
  origin: string;
  apiKey: string;
  spaceId: string;
  pid: number;
}

export type ReadKind = "space" | "cubes-page" | "cube" | "domains" | "tcp-mappings" | "other";

export interface MutationRecord {
  method: string;
  /** Route shape, ids replaced: e.g. PATCH /cubes/:id */
  route: string;
  status: number;
}

export interface BenchStats {
  requests: number;
  gets: number;
  getsByKind: Record<ReadKind, number>;
  mutations: number;
  /** Mutating requests the emulator accepted (2xx). */
  mutationsAccepted: number;
  byStatus: Record<string, number>;
  status429: number;
  /** Every mutating request (the bench sends few of them while counting). */
  mutationLog: MutationRecord[];
  /** Wall time spent inside the emulator's handler, summed over requests (ms). */
  handlerMs: number;
  /** CPU time (user + system) of the whole emulator process since the last reset (ms). */
  cpuMs: number;
  /** Connections that sent a request since the last reset: a client's requests in flight at most (one each). */
  connections: number;
}

export function emptyStats(): BenchStats {
  return {
    requests: 0,
    gets: 0,
    getsByKind: { space: 0, "cubes-page": 0, cube: 0, domains: 0, "tcp-mappings": 0, other: 0 },
    mutations: 0,
    mutationsAccepted: 0,
    byStatus: {},
    status429: 0,
    mutationLog: [],
    handlerMs: 0,
    cpuMs: 0,
    connections: 0,
  };
}

const MUTATION_LOG_MAX = 10_000;

export function readKind(path: string): ReadKind {
  const rest = path.replace(/^\/api\/v1/, "");
  if (rest === "/space") return "space";
  if (/^\/spaces\/[^/]+\/cubes$/.test(rest)) return "cubes-page";
  if (/^\/spaces\/[^/]+\/cubes\/[^/]+$/.test(rest)) return "cube";
  if (/^\/spaces\/[^/]+\/cubes\/[^/]+\/domains$/.test(rest)) return "domains";
  if (/^\/spaces\/[^/]+\/cubes\/[^/]+\/tcp-mappings$/.test(rest)) return "tcp-mappings";
  return "other";
}

export function routeShape(path: string): string {
  return path.replace(/^\/api\/v1\/spaces\/[^/]+/, "").replace(/\/(cubes|domains|tcp-mappings|snapshots|webhooks)\/[^/]+/g, "/$1/:id");
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? "{}") as BenchEmulatorOptions;
  const emulatorOptions: EmulatorOptions = {
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    clockSpeed: options.clockSpeed ?? 1000,
    ...(options.defaultPageSize ? { defaultPageSize: options.defaultPageSize } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.spaceId ? { spaceId: options.spaceId } : {}),
    ...(options.statePath ? { statePath: options.statePath } : {}),
  };
  const { core, handle } = assembleEmulator(emulatorOptions);
  const counter = new RequestCounter();
  const counted: Handle = async (req) => {
    const started = performance.now();
    const response = await handle(req);
    if (req.path.startsWith("/api/v1/")) counter.count(req.method, req.path, response.status, performance.now() - started);
    return response;
  };
  const listener = httpListener(counted);
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.url?.startsWith("/api/v1/")) counter.sawConnection(req.socket);
    if (!counter.serveBenchRoute(new URL(req.url ?? "/", "http://127.0.0.1").pathname, res)) listener(req, res);
  };
  await listenAndAnnounce(serve, { apiKey: core.apiKey, spaceId: core.spaceId }, () => core.close());
}

/** Counts what a bench server answers; serves /__bench/stats and /__bench/reset. */
export class RequestCounter {
  private stats = emptyStats();
  private cpuBaseline = process.cpuUsage();
  private sockets = new WeakSet<object>();

  sawConnection(socket: object): void {
    if (this.sockets.has(socket)) return;
    this.sockets.add(socket);
    this.stats.connections++;
  }

  count(method: string, path: string, status: number, ms: number): void {
    const stats = this.stats;
    stats.requests++;
    stats.handlerMs += ms;
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
    if (status === 429) stats.status429++;
    if (method === "GET" || method === "HEAD") {
      stats.gets++;
      stats.getsByKind[readKind(path)]++;
    } else {
      stats.mutations++;
      if (status >= 200 && status < 300) stats.mutationsAccepted++;
      if (stats.mutationLog.length < MUTATION_LOG_MAX) stats.mutationLog.push({ method, route: routeShape(path), status });
    }
  }

  /** True when the path was a bench route (and has been answered). */
  serveBenchRoute(pathname: string, res: ServerResponse): boolean {
    if (pathname === "/__bench/stats") {
      const cpu = process.cpuUsage(this.cpuBaseline);
      reply(res, 200, JSON.stringify({ ...this.stats, cpuMs: (cpu.user + cpu.system) / 1000 }));
      return true;
    }
    if (pathname === "/__bench/reset") {
      this.stats = emptyStats();
      this.cpuBaseline = process.cpuUsage();
      this.sockets = new WeakSet();
      reply(res, 200, '{"success":true}');
      return true;
    }
    return false;
  }
}

/** Listens on a free loopback port, prints the ready line, and exits cleanly on SIGTERM/SIGINT. */
export async function listenAndAnnounce(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  who: { apiKey: string; spaceId: string },
  onClose: () => void,
): Promise<void> {
  const server = createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ready: BenchEmulatorReady = { url: `${origin}/api/v1`, origin, apiKey: who.apiKey, spaceId: who.spaceId, pid: process.pid };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  const stop = (): void => {
    onClose();
    server.close();
    server.closeAllConnections();
    // A normal exit (not death by signal), so --cpu-prof writes its profile.
    setImmediate(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

export function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

if (process.argv[1]?.endsWith("emulator-process.ts")) void main();
