/**
 * The emulator's own throughput at fleet size: seed N cubes through its public API (each with
 * 2 domains and 2 published ports, as bench/fleet.ts), save the state, load it again, then
 * answer a plan's reads — 1 list walk at page size 100 + GET …/domains + GET …/tcp-mappings
 * per cube (20,100 reads at 10,000 cubes) — in process (app.request, no sockets) and over
 * HTTP against the emulator in a child process (bench/emulator-process.ts).
 *
 *   npx tsx bench/emulator-throughput.ts                 # 10,000 cubes
 *   npx tsx bench/emulator-throughput.ts --cubes 1000    # smaller fleet
 *   npx tsx bench/emulator-throughput.ts --no-http       # skip the child-process phase
 *   npx tsx bench/emulator-throughput.ts --cpu-prof DIR  # --cpu-prof the emulator child into DIR
 *   node --cpu-prof --cpu-prof-dir DIR --import tsx bench/emulator-throughput.ts  # profile seeding
 *
 * CPU figures are process.cpuUsage() (user + system) of the process doing the work: this one
 * for the in-process phases (they include the client side: app.request builds a fetch Request
 * and Response per call, about half the time), the emulator child's own for the HTTP phase —
 * the figure to hold against the budget (20,100 reads in well under 3 s of emulator CPU).
 */
import { mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { createEmulatorApp } from "../emulator/index.js";
import { appSender, fleet, httpSender, seedStateFile, type Send } from "./fleet.js";
import { startEmulatorProcess, WORK_DIR } from "./measure.js";

const API_KEY = "kro_bench_throughput_0123456789";
const SPACE_ID = "space-throughput";
const PAGE_SIZE = 100;
const UNLIMITED = { limit: 1_000_000_000, windowMs: 1_000 };

interface Options {
  cubes: number;
  http: boolean;
  concurrency: number;
  /** Directory for a --cpu-prof profile of the emulator child. */
  cpuProf?: string;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { cubes: 10_000, http: true, concurrency: 8 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--cubes") options.cubes = Number(argv[++i]);
    else if (arg === "--no-http") options.http = false;
    else if (arg === "--concurrency") options.concurrency = Number(argv[++i]);
    else if (arg === "--cpu-prof") options.cpuProf = argv[++i];
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!(options.cubes >= 1)) throw new Error("--cubes must be ≥ 1");
  return options;
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

async function timed<T>(work: () => Promise<T> | T): Promise<{ result: T } & Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const used = process.cpuUsage(cpu);
  return { result, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

// ------------------------------------------------------------------ a plan's reads

/** The reads of a plan: every page, then domains and tcp-mappings of every cube. */
async function planReads(send: Send, concurrency: number): Promise<{ reads: number; failed: number }> {
  const space = `/spaces/${SPACE_ID}`;
  const ids: string[] = [];
  let reads = 0;
  let failed = 0;
  for (let page = 1; ; page++) {
    const { status, body } = await send("GET", `${space}/cubes?page=${page}&limit=${PAGE_SIZE}`);
    reads++;
    if (status !== 200) throw new Error(`list page ${page} → ${status}`);
    const { cubes, pagination } = body as { cubes: { id: string }[]; pagination: { totalPages: number } };
    ids.push(...cubes.map((c) => c.id));
    if (page >= pagination.totalPages) break;
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ids.length) {
      const id = ids[next++] as string;
      for (const sub of ["domains", "tcp-mappings"]) {
        const { status } = await send("GET", `${space}/cubes/${id}/${sub}`);
        reads++;
        if (status !== 200) failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { reads, failed };
}

// ------------------------------------------------------------------ report

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const perSecond = (count: number, ms: number) => `${Math.round(count / (ms / 1000)).toLocaleString("en-US")}/s`;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const n = options.cubes;
  mkdirSync(WORK_DIR, { recursive: true });
  const statePath = join(WORK_DIR, `throughput-${n}.json`);
  rmSync(statePath, { force: true });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`emulator throughput — ${n.toLocaleString("en-US")} cubes (2 domains + 2 ports each), Node ${process.version}`);

  const requests = n * 5;
  const seeded = await timed(() => seedStateFile(statePath, fleet(n), { apiKey: API_KEY, spaceId: SPACE_ID }));
  out(
    `seed through the API (in process): ${requests.toLocaleString("en-US")} POSTs in ${s(seeded.wallMs)} wall, ${s(seeded.cpuMs)} CPU (${perSecond(requests, seeded.wallMs)}); state file ${(statSync(statePath).size / 1e6).toFixed(1)} MB`,
  );

  const loaded = await timed(() => createEmulatorApp({ statePath, apiKey: API_KEY, rateLimit: UNLIMITED, clockSpeed: 1 }));
  out(`load the state file: ${s(loaded.wallMs)} wall, ${s(loaded.cpuMs)} CPU`);
  const app = loaded.result;
  const inProcess = await timed(() => planReads(appSender(app, API_KEY), 1));
  const counted = app.admin.requestCounts().GET ?? 0;
  app.close();
  out(
    `plan reads (in process): ${inProcess.result.reads.toLocaleString("en-US")} GETs (${inProcess.result.failed} failed) in ${s(inProcess.wallMs)} wall, ${s(inProcess.cpuMs)} CPU (${perSecond(inProcess.result.reads, inProcess.wallMs)}); admin.requestCounts().GET = ${counted}`,
  );

  if (!options.http) return;
  const profiling = options.cpuProf ? ["--cpu-prof", "--cpu-prof-dir", options.cpuProf] : [];
  const server = await startEmulatorProcess({ statePath, rateLimit: UNLIMITED, clockSpeed: 1 }, profiling);
  try {
    await server.resetStats();
    const overHttp = await timed(() => planReads(httpSender({ url: server.url, apiKey: API_KEY }), options.concurrency));
    const stats = await server.stats();
    out(
      `plan reads (HTTP, emulator in a child process, ${options.concurrency} in flight): ${overHttp.result.reads.toLocaleString("en-US")} GETs (${overHttp.result.failed} failed) in ${s(overHttp.wallMs)} wall (${perSecond(overHttp.result.reads, overHttp.wallMs)}); emulator CPU ${s(stats.cpuMs)}, of it in its handler ${s(stats.handlerMs)}`,
    );
  } finally {
    await server.stop();
  }
}

await main();
