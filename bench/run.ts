/**
 * `npm run bench`: cubeform's benchmarks. Every timed figure is measured beside its floor in
 * the same run — in alternating pairs, RUNS of them (default 9) — and printed with the median of
 * the pairs' ratios and their spread (lowest–highest pair). Writes bench/results.json (not committed; bench/RESULTS.md keeps one run).
 *
 *   npm run bench                         # start-up, 1,000, 10,000 and 30,000 cubes (~6 min on 2 cores)
 *   npm run bench -- --sizes 1000,10000   # fleets to plan (default 1000,10000,30000)
 *   npm run bench -- --sizes none         # start-up only (--version, validate vs node -e 0)
 *   npm run bench -- --runs 3             # repetitions of each alternating pair (default 9)
 *   npm run bench -- --profile            # also a --cpu-prof run of each plan, summarized
 *   npm run bench -- --sweep              # also plans through the latency proxy at --parallelism 32…256
 *   npm run bench:transfer                # separately: 256 MiB and 1 GiB download/upload (bench/transfer.ts)
 *
 * The floors:
 *  - start-up: `node -e 0`;
 *  - a plan: bench/floor/read-floor.mjs (a copy of shared/bench/read-floor.mjs): the same
 *    1 + 2N reads with keep-alive node:http, 32 in flight, JSON.parse and nothing else;
 *  - a `--target` plan: the full plan; a watch round: the floor's CPU for the same reads;
 *  - a plan through bench/floor/latency-proxy.mjs (10 ms each way): bench/floor/reads-in-flight.mjs,
 *    the same reads alone with as many in flight as the plan had, through the same proxy. Beside
 *    it, for information: the formula (GETs ÷ in flight × the round trip measured through it).
 * Every measured run is a child process (`node bin/cubeform.js …`, transpiled from the working
 * tree into bench/.build; the floor runs the same way) against the emulator in another child
 * process (bench/emulator-process.ts: its own HTTP path plus a request counter), so peak RSS
 * and CPU are the measured process's alone. Fleets are seeded through the emulator's public
 * API, in process, into its state file (bench/fleet.ts seedStateFile), which it then loads.
 */
import { cpus, loadavg, totalmem } from "node:os";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCli, ROOT } from "./build.js";
import { changeSet, cubeName, desiredYaml, fleet, groupedFleet, groupedYaml, seedStateFile } from "./fleet.js";
import {
  CODE_CACHE_HOME,
  READS_IN_FLIGHT,
  roundTripMs,
  runCli,
  runFloor,
  runNode,
  startEmulatorProcess,
  startLatencyProxy,
  watchRounds,
  WORK_DIR,
  type CliRun,
  type EmulatorChild,
} from "./measure.js";
import { summarizeProfile, type ProfileSummary } from "./profile.js";
import type { BenchStats } from "./emulator-process.js";

const argv = process.argv.slice(2);
if (argv.includes("--help") || argv.includes("-h")) {
  // The usage above, without running anything (an unknown flag would run the whole bench).
  process.stdout.write(`usage: npm run bench -- [--sizes none|N,N,…] [--runs N] [--profile]
  (no flags)          start-up, then 1,000, 10,000 and 30,000 cubes (~6 min of both cores)
  --sizes 1000,10000  the fleets to plan (default 1000,10000,30000)
  --sizes none        start-up only (--version and validate vs node -e 0)
  --runs N            repetitions of each alternating pair (default 9)
  --profile           also a --cpu-prof run of each plan, summarized
  --sweep             also plans through the latency proxy at --parallelism 32, 64, 128, 256 (info)
`);
  process.exit(0);
}
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const PROFILE = argv.includes("--profile");
const SWEEP = argv.includes("--sweep");
const RUNS = Number(flag("--runs") ?? 9);
/** `--groups`: only the in-sync 10,000 cubes written as groups. */
const GROUPS_ONLY = process.argv.includes("--groups");
const SIZES = flag("--sizes") === "none" ? [] : (flag("--sizes") ?? "1000,10000,30000").split(",").map(Number);

const API_KEY = "kro_bench_0123456789abcdef";
const SPACE_ID = "space-bench";
/** The client's page size (client/cube-client.ts DEFAULT_PAGE_SIZE; the API's maximum). */
const PAGE_SIZE = 100;
const K = 25;
const APPLY_RATE = { limit: 10, windowMs: 2_000, flag: "10/2" };
const WATCH_ROUNDS = 5;

type Verdict = "PASS" | "MISS" | "info";
interface Row {
  figure: string;
  measured: string;
  floor: string;
  ratio: string;
  target: string;
  verdict: Verdict;
}

const rows: Row[] = [];
const results: Record<string, unknown> = {};
const profiles: Record<string, ProfileSummary> = {};

function row(figure: string, measured: string, target = "—", verdict: Verdict = "info", floor = "—", ratio = "—"): void {
  rows.push({ figure, measured, floor, ratio, target, verdict });
  const beside = floor === "—" ? "" : ` | floor ${floor} | ${ratio}`;
  process.stderr.write(`  ${verdict.padEnd(4)} ${figure}: ${measured}${beside}${target === "—" ? "" : ` (target ${target})`}\n`);
}
/**
 * A figure beside its floor, run in alternating pairs: the ratio is the median of each pair's own ratio (the two runs of a
 * pair are next to each other in time, so a busy neighbour on a shared machine weighs on both), shown with its spread (the
 * lowest and highest pair). Walls are medians. Without maxRatio, for information.
 */
function pairRow(figure: string, measured: number[], floor: number[], maxRatio?: number): number {
  const ratios = measured.map((m, i) => m / (floor[i] ?? NaN)).filter(Number.isFinite);
  const ratio = median(ratios);
  const spread = `${ratio.toFixed(2)}× (pairs ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`;
  row(
    figure,
    s(median(measured)),
    maxRatio === undefined ? "—" : `≤ ${maxRatio}×`,
    maxRatio === undefined ? "info" : pass(ratio <= maxRatio),
    s(median(floor)),
    spread,
  );
  return ratio;
}
const pass = (ok: boolean): Verdict => (ok ? "PASS" : "MISS");
const s = (ms: number) => (ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
const mb = (kb: number | null) => (kb === null ? "n/a" : `${Math.round(kb / 1024)} MB`);
const load = () => loadavg()[0]?.toFixed(1) ?? "?";
const log = (text: string) => process.stderr.write(`${text}\n`);
const cpuOf = (run: CliRun) => (run.userMs ?? 0) + (run.systemMs ?? 0);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}
const medianOf = <T>(runs: T[], pick: (r: T) => number | null) => median(runs.map((r) => pick(r) ?? NaN));

/**
 * Runs each measurement `runs` times, interleaved (a, b, c, b, c, a, …: the order rotates so
 * that none always runs first after a pause), and answers the runs by name.
 */
async function alternate<T extends Record<string, () => Promise<unknown>>>(
  runs: number,
  measurements: T,
): Promise<{ [K in keyof T]: Awaited<ReturnType<T[K]>>[] }> {
  const names = Object.keys(measurements) as (keyof T)[];
  const out = Object.fromEntries(names.map((n) => [n, []])) as unknown as { [K in keyof T]: Awaited<ReturnType<T[K]>>[] };
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length] as keyof T;
      out[name].push((await measurements[name]!()) as Awaited<ReturnType<T[typeof name]>>);
    }
  }
  return out;
}

function minReads(cubes: number): number {
  return Math.ceil(cubes / PAGE_SIZE) + 2 * cubes;
}

/** A plan also reads the live prices (GET /pricing, beside the other reads): the floor does not. */
const PRICES = 1;

function envFor(server: EmulatorChild): Record<string, string> {
  return { CUBE_API_URL: server.url, CUBE_API_KEY: server.apiKey, CUBE_SPACE_ID: server.spaceId };
}

interface PlanJson {
  summary: {
    mutations: number;
    add: number;
    change: number;
    destroy: number;
    unmanaged: number;
    blocked: number;
    estimatedSeconds: number;
  };
  steps: { op: string }[];
}

function parsePlan(run: CliRun, what: string): PlanJson {
  try {
    return JSON.parse(run.stdout) as PlanJson;
  } catch {
    throw new Error(`${what}: exit ${run.exitCode}, no JSON plan on stdout. stderr: ${run.stderr.slice(0, 2000)}`);
  }
}

interface TimedPlan {
  run: CliRun;
  stats: BenchStats;
  plan: PlanJson;
  /** GETs by the emulator's own counter (admin request-counts), to cross-check the bench's. */
  emulatorGets: number;
}

const PLAN_ARGS = ["--rate-limit", "10/60", "--format", "json"];

async function timedPlan(
  server: EmulatorChild,
  file: string,
  label: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<TimedPlan> {
  await server.resetStats();
  await server.admin("DELETE", "/requests");
  const run = await runCli(["plan", "-f", file, ...PLAN_ARGS, ...extra], { env: { ...envFor(server), ...env }, timeoutMs: 300_000 });
  const stats = await server.stats();
  const counts = (await server.admin("GET", "/request-counts")) as { requestCounts: Record<string, number> };
  const plan = parsePlan(run, label);
  return { run, stats, plan, emulatorGets: counts.requestCounts.GET ?? 0 };
}

async function profilePlan(server: EmulatorChild, file: string, name: string): Promise<void> {
  if (!PROFILE) return;
  const dir = join(WORK_DIR, "profiles", name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await runCli(["plan", "-f", file, ...PLAN_ARGS], {
    env: envFor(server),
    nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir],
    timeoutMs: 300_000,
  });
  const file0 = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (file0) profiles[name] = summarizeProfile(join(dir, file0), ROOT, 12);
}

function readsText(p: TimedPlan): string {
  const k = p.stats.getsByKind;
  return `${p.stats.gets} (${k["cubes-page"]} pages + ${k.domains} domains + ${k["tcp-mappings"]} tcp + ${k.space + k.cube + k.other} other); emulator's own count ${p.emulatorGets}`;
}

// ------------------------------------------------------------------ scenarios

async function benchStartup(): Promise<void> {
  log(`\n== start-up; load average ${load()}`);
  const file = join(WORK_DIR, "fleet-10.yaml");
  writeFileSync(file, desiredYaml(fleet(10)));
  // The CLI's code cache (bin/bundle-loader.js) starts empty: the first run of each command
  // writes it, as a user's first run does. The same runs without it are shown beside.
  rmSync(CODE_CACHE_HOME, { recursive: true, force: true });
  const runs = await alternate(RUNS, {
    node: () => runNode(["-e", "0"], { env: {} }),
    version: () => runCli(["--version"], { env: {} }),
    validate: () => runCli(["validate", "-f", file], { env: {} }),
    validateUncached: () => runCli(["validate", "-f", file], { env: { CUBEFORM_CODE_CACHE: "off" } }),
  });
  if ([...runs.validate, ...runs.validateUncached].some((r) => r.exitCode !== 0))
    throw new Error(`validate failed: ${runs.validate[0]?.stderr}`);
  const wall = (list: CliRun[]) => list.map((r) => r.wallMs);
  const node = wall(runs.node);
  pairRow(`\`cubeform --version\` vs \`node -e 0\`: wall`, wall(runs.version), node, 2);
  pairRow(`\`cubeform validate\` (10 cubes) vs \`node -e 0\`: wall`, wall(runs.validate), node, 2.5);
  pairRow(
    `\`cubeform validate\` without the code cache (CUBEFORM_CODE_CACHE=off; as a first run) vs \`node -e 0\`: wall`,
    wall(runs.validateUncached),
    node,
  );
  results.startup = Object.fromEntries(
    Object.entries(runs).map(([k, v]) => [k, v.map((r) => ({ wallMs: r.wallMs, cpuMs: cpuOf(r), maxRssKb: r.maxRssKb }))]),
  );
}

interface Fleet {
  n: number;
  inSync: string;
  emulator: EmulatorChild;
}

async function withFleet(n: number, body: (f: Fleet) => Promise<void>, grouped = false): Promise<void> {
  log(
    `\n== ${n} cubes (2 domains, 2 ports each${grouped ? `; written as ${n / 100} groups of 100 replicas` : ""}); load average ${load()}`,
  );
  const cubes = grouped ? groupedFleet(n) : fleet(n);
  const statePath = join(WORK_DIR, `state-${n}${grouped ? "-groups" : ""}.json`);
  const seeded = await seedStateFile(statePath, cubes, { apiKey: API_KEY, spaceId: SPACE_ID });
  row(`seed ${n} cubes through the emulator's API (in process, ${5 * n} POSTs)`, s(seeded.wallMs));
  const inSync = join(WORK_DIR, `fleet-${n}${grouped ? "-groups" : ""}.yaml`);
  writeFileSync(inSync, grouped ? groupedYaml(n) : desiredYaml(cubes));
  const emulator = await startEmulatorProcess({ statePath, rateLimit: { limit: 1_000_000, windowMs: 1_000 }, clockSpeed: 1_000 });
  try {
    await body({ n, inSync, emulator });
  } finally {
    await emulator.stop();
  }
}

/**
 * The in-sync plan beside the read floor: wall, peak RSS, reads. Answers the plan's median wall
 * time. The plan's first run of the file writes its load cache (desired/load-cache.ts), the
 * later ones use it, as a user's repeated plans do; with `firstRun`, runs without the load cache
 * (every run as a first one) are shown beside.
 */
async function planBesideFloor(
  f: Fleet,
  maxRatio: number | undefined,
  maxRssMb: number | undefined,
  extra: Record<string, () => Promise<unknown>> = {},
  options: { firstRun?: boolean } = {},
): Promise<{ planMs: number; extra: Record<string, unknown[]> }> {
  const { n, emulator } = f;
  const firstRun: Record<string, () => Promise<TimedPlan>> = options.firstRun
    ? { firstRun: () => timedPlan(emulator, f.inSync, `plan ${n} (no load cache)`, [], { CUBEFORM_LOAD_CACHE: "off" }) }
    : {};
  const runs = await alternate(RUNS, {
    floor: () => runFloor(emulator),
    plan: () => timedPlan(emulator, f.inSync, `plan ${n}`),
    ...firstRun,
    ...extra,
  });
  const floors = runs.floor;
  const plans = runs.plan;
  const planMs = medianOf(plans, (p) => p.run.wallMs);
  const floorWalls = floors.map((r) => r.wallMs);
  const what = `plan ${n} (in sync) vs read floor`;
  pairRow(
    `${what}: wall, ${RUNS} pairs`,
    plans.map((p) => p.run.wallMs),
    floorWalls,
    maxRatio,
  );
  if (options.firstRun) {
    const first = ((runs as unknown as Record<string, TimedPlan[]>).firstRun ?? []).map((p) => p.run.wallMs);
    pairRow(`${what}: wall of a first run of the file (CUBEFORM_LOAD_CACHE=off)`, first, floorWalls);
  }
  const planCpu = medianOf(plans, (p) => cpuOf(p.run));
  const floorCpu = medianOf(floors, cpuOf);
  row(`${what}: CPU of the client process`, s(planCpu), "—", "info", s(floorCpu), `${(planCpu / floorCpu).toFixed(2)}×`);
  row(`plan ${n}: emulator CPU for the plan's reads`, s(medianOf(plans, (p) => p.stats.cpuMs)));
  // The default widens on a slow network only (reconciler/session/session.ts): on loopback it stays at 64.
  row(`plan ${n}: requests in flight (connections it opened)`, [...new Set(plans.map((p) => p.stats.connections))].join(", "));
  const rss = medianOf(plans, (p) => p.run.maxRssKb);
  const floorRss = medianOf(floors, (r) => r.maxRssKb);
  row(
    `plan ${n}: peak RSS`,
    mb(rss),
    maxRssMb === undefined ? "—" : `≤ ${maxRssMb} MB`,
    maxRssMb === undefined ? "info" : pass(rss <= maxRssMb * 1024),
    mb(floorRss),
    `${(rss / floorRss).toFixed(2)}×`,
  );
  const first = plans[0]!;
  const min = minReads(n);
  const allMin =
    plans.every((p) => p.stats.gets === min + PRICES && p.emulatorGets === min + PRICES) && floors.every((r) => r.reads === min);
  row(
    `plan ${n}: API reads (page size ${PAGE_SIZE})`,
    readsText(first),
    `= ${min} minimum + ${PRICES} prices (floor: ${floors[0]?.reads})`,
    pass(allMin),
  );
  row(
    `plan ${n}: in sync`,
    `exit ${first.run.exitCode}, ${first.plan.summary.mutations} mutations`,
    "exit 0",
    pass(plans.every((p) => p.run.exitCode === 0 && p.plan.summary.mutations === 0)),
  );
  results[`plan${n}`] = {
    plan: plans.map((p) => ({
      wallMs: p.run.wallMs,
      cpuMs: cpuOf(p.run),
      maxRssKb: p.run.maxRssKb,
      serverCpuMs: p.stats.cpuMs,
      reads: p.stats.gets,
    })),
    floor: floors.map((r) => ({ wallMs: r.wallMs, cpuMs: cpuOf(r), maxRssKb: r.maxRssKb, reads: r.reads })),
  };
  await profilePlan(emulator, f.inSync, `plan${n}`);
  const rest = Object.fromEntries(Object.keys(extra).map((k) => [k, (runs as Record<string, unknown[]>)[k] ?? []]));
  return { planMs, extra: rest };
}

/** Each chunk held this long each way by the latency proxy: a ~20 ms round trip, as to a nearby region. */
const LATENCY_DELAY_MS = 10;

/**
 * The in-sync plan through the latency proxy beside the same reads alone (bench/floor/reads-in-flight.mjs: no cubeform code,
 * JSON.parse only) with as many in flight as the plan had (the connections it opened: one request each), through the same
 * proxy: how well the plan keeps its connections busy where the network, not CPU, bounds it. The formula's floor (GETs ÷ in
 * flight × round trip) is shown beside for information: client, proxy and emulator share the cores, so the bare reads
 * themselves do not reach it.
 */
async function planThroughLatency(f: Fleet, maxRatio: number): Promise<void> {
  const proxy = await startLatencyProxy(f.emulator, LATENCY_DELAY_MS);
  try {
    const rtt = await roundTripMs(proxy.url, f.emulator.apiKey);
    row(`round trip through the latency proxy (${LATENCY_DELAY_MS} ms each way; median of 31 GETs)`, `${rtt.toFixed(1)} ms`);
    const gets = minReads(f.n);
    for (const parallelism of SWEEP ? [undefined, 32, 64, 128, 256] : [undefined]) {
      const plan = () =>
        timedPlan(
          f.emulator,
          f.inSync,
          `plan ${f.n} at ${parallelism ?? "default"} in flight`,
          parallelism === undefined ? [] : ["--parallelism", String(parallelism)],
          { CUBE_API_URL: proxy.url },
        );
      // The default adapts to the round trip: a first plan tells how many the bare reads get.
      const inFlight = parallelism ?? (await plan()).stats.connections;
      const reads = () => runFloor({ ...f.emulator, url: proxy.url }, inFlight, READS_IN_FLIGHT);
      const runs = await alternate(RUNS, { plan, reads });
      const planWalls = runs.plan.map((p) => p.run.wallMs);
      const readsWalls = runs.reads.map((r) => r.wallMs);
      const seen = [...new Set(runs.plan.map((p) => p.stats.connections))].join("/");
      const what = `plan ${f.n} (in sync) through the latency proxy, ${parallelism === undefined ? `default (${seen} in flight)` : `--parallelism ${parallelism}`} vs the same reads alone at ${inFlight} in flight (reads-in-flight.mjs) through the same proxy: wall`;
      pairRow(what, planWalls, readsWalls, parallelism === undefined ? maxRatio : undefined);
      const floorMs = (gets / inFlight) * rtt;
      row(
        `  the formula's latency floor (${gets} GETs ÷ ${inFlight} × round trip) vs the plan, and vs the bare reads ${s(median(readsWalls))}`,
        s(median(planWalls)),
        "—",
        "info",
        s(floorMs),
        `${(median(planWalls) / floorMs).toFixed(2)}× (reads ${(median(readsWalls) / floorMs).toFixed(2)}×)`,
      );
      results[`latency${f.n}p${parallelism ?? "default"}`] = {
        rttMs: rtt,
        floorMs,
        inFlight,
        reads: readsWalls,
        plan: runs.plan.map((p) => ({
          wallMs: p.run.wallMs,
          cpuMs: cpuOf(p.run),
          exitCode: p.run.exitCode,
          connections: p.stats.connections,
        })),
      };
    }
  } finally {
    await proxy.stop();
  }
}

async function benchThousand(): Promise<void> {
  await withFleet(1_000, async (f) => {
    const { n, emulator } = f;
    await planBesideFloor(f, 1.5, undefined, {}, { firstRun: true });
    await planThroughLatency(f, 1.25);

    // A watch round on the in-sync fleet: CPU per round after the first.
    const floorCpu = medianOf(await alternate(3, { floor: () => runFloor(emulator) }).then((r) => r.floor), cpuOf);
    const watch = await watchRounds(["-f", f.inSync, "--interval", "1s", "--rate-limit", "10/60"], WATCH_ROUNDS, { env: envFor(emulator) });
    const roundCpu = median(watch.roundCpuMs);
    row(
      `watch on ${n} in-sync cubes: CPU per round (median of ${watch.roundCpuMs.length}; floor: the reads' process CPU)`,
      s(roundCpu),
      "≤ 0.3 s",
      pass(roundCpu <= 300),
      s(floorCpu),
      `${(roundCpu / floorCpu).toFixed(2)}×`,
    );
    results.watch1000 = { roundCpuMs: watch.roundCpuMs, floorCpuMs: floorCpu };

    // Plan with K changes, apply them paced, converge.
    const changes = changeSet(n, K);
    const changed = join(WORK_DIR, `fleet-${n}-k${K}.yaml`);
    writeFileSync(changed, desiredYaml(fleet(n), changes));
    const k = await timedPlan(emulator, changed, "plan k25");
    const c = changes.counts;
    row(
      `plan ${n} with K=${K} changes: summary.mutations`,
      `${k.plan.summary.mutations} (exit ${k.run.exitCode}; ${s(k.run.wallMs)})`,
      `= ${changes.minimalMutations} (${c.protect} protect, ${c["add-port"]} port, ${c["patch-domain"]} domain, ${c["power-off"]} power)`,
      pass(k.plan.summary.mutations === changes.minimalMutations && k.run.exitCode === 2),
    );
    await emulator.admin("POST", "/rate-limit", { limit: APPLY_RATE.limit, windowMs: APPLY_RATE.windowMs });
    await emulator.resetStats();
    const apply = await runCli(
      ["apply", "-f", changed, "--rate-limit", APPLY_RATE.flag, "--auto-approve", "--poll-interval", "100", "--wait-timeout", "60"],
      { env: envFor(emulator), timeoutMs: 180_000 },
    );
    const applied = await emulator.stats();
    const byRoute: Record<string, number> = {};
    for (const m of applied.mutationLog) byRoute[`${m.method} ${m.route}`] = (byRoute[`${m.method} ${m.route}`] ?? 0) + 1;
    const floorMs = (Math.ceil(changes.minimalMutations / APPLY_RATE.limit) - 1) * APPLY_RATE.windowMs;
    results.apply = {
      exitCode: apply.exitCode,
      wallMs: apply.wallMs,
      mutations: applied.mutations,
      status429: applied.status429,
      byRoute,
      reads: applied.gets,
      minimal: changes.minimalMutations,
      planned: k.plan.summary.mutations,
    };
    row(
      `apply K=${K} at ${APPLY_RATE.flag} (both sides): exit code`,
      `exit ${apply.exitCode}${apply.exitCode === 0 ? "" : `: ${apply.stderr.trim().split("\n").pop() ?? ""}`}`,
      "exit 0",
      pass(apply.exitCode === 0),
    );
    row(
      `apply: mutations sent (emulator log)`,
      `${applied.mutations} [${Object.entries(byRoute)
        .map(([r, m]) => `${m}× ${r}`)
        .join(", ")}]`,
      `= ${changes.minimalMutations} minimal = plan ${k.plan.summary.mutations}`,
      pass(applied.mutations === changes.minimalMutations && applied.mutations === k.plan.summary.mutations),
    );
    row(`apply: 429 responses`, String(applied.status429), "0", pass(applied.status429 === 0));
    row(`apply: wall time (pacing floor ${s(floorMs)}; reads ${applied.gets} = plan + re-observe + waits)`, s(apply.wallMs));
    const after = await timedPlan(emulator, changed, "plan after apply");
    row(
      `plan after apply: converged`,
      `exit ${after.run.exitCode}, ${after.plan.summary.mutations} mutations`,
      "exit 0",
      pass(after.run.exitCode === 0 && after.plan.summary.mutations === 0),
    );
  });
}

async function benchTenThousand(): Promise<void> {
  await withFleet(10_000, async (f) => {
    const target = cubeName(4_321);
    const { planMs, extra } = await planBesideFloor(
      f,
      1.5,
      200,
      { target: () => timedPlan(f.emulator, f.inSync, "plan --target", ["--target", target]) },
      { firstRun: true },
    );
    const targeted = extra.target as TimedPlan[];
    const targetMs = medianOf(targeted, (p) => p.run.wallMs);
    row(
      `plan --target ${target} on ${f.n} cubes vs the full plan: wall (floor: the full plan)`,
      s(targetMs),
      "≤ 10 %",
      pass(targetMs <= planMs * 0.1),
      s(planMs),
      `${((100 * targetMs) / planMs).toFixed(1)} %`,
    );
    const t = targeted[0]!;
    const minTarget = minReads(f.n) - 2 * (f.n - 1) + PRICES;
    row(
      `plan --target: API reads`,
      readsText(t),
      `= ${minTarget} (the pages + 2 + prices)`,
      pass(targeted.every((p) => p.stats.gets === minTarget)),
    );
    results.target10000 = targeted.map((p) => ({
      wallMs: p.run.wallMs,
      cpuMs: cpuOf(p.run),
      reads: p.stats.gets,
      exitCode: p.run.exitCode,
    }));
    await planThroughLatency(f, 1.1);
  });
}

/** The in-sync 10,000-cube fleet written as 100 groups of `replicas: 100`: the plan expands the groups and stays within the same bounds. */
async function benchTenThousandGroups(): Promise<void> {
  await withFleet(
    10_000,
    async (f) => {
      const { planMs } = await planBesideFloor(f, 1.5, 200);
      results.groups10000 = { planMs };
    },
    true,
  );
}

async function benchThirtyThousand(): Promise<void> {
  await withFleet(30_000, async (f) => {
    await planBesideFloor(f, undefined, 400);
  });
}

function table(): string {
  const head = ["figure", "cubeform", "floor", "ratio", "target", "result"];
  const body = rows.map((r) => [r.figure, r.measured, r.floor, r.ratio, r.target, r.verdict]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

function profileText(): string {
  const out: string[] = [];
  for (const [name, p] of Object.entries(profiles)) {
    out.push(`\n--cpu-prof of ${name}: ${p.totalMs} ms sampled, ${p.idleMs} ms idle (waiting on the server)`);
    out.push("  self time:");
    for (const h of p.selfTop) out.push(`    ${String(h.ms).padStart(8)} ms ${String(h.percent).padStart(5)}%  ${h.where}`);
    out.push("  inclusive time, this repository's functions:");
    for (const h of p.repoTotalTop) out.push(`    ${String(h.ms).padStart(8)} ms ${String(h.percent).padStart(5)}%  ${h.where}`);
  }
  return out.join("\n");
}

async function main(): Promise<void> {
  const started = performance.now();
  mkdirSync(WORK_DIR, { recursive: true });
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}`;
  log(`cubeform benchmarks — ${machine}; medians of ${RUNS} alternating runs`);
  const files = buildCli();
  log(`built the CLI from the working tree (${files} files) into bench/.build`);
  if (GROUPS_ONLY) {
    await benchTenThousandGroups();
  } else {
    await benchStartup();
    if (SIZES.includes(1_000)) await benchThousand();
    if (SIZES.includes(10_000)) await benchTenThousand();
    if (SIZES.includes(10_000)) await benchTenThousandGroups();
  }
  if (SIZES.includes(30_000) && !GROUPS_ONLY) await benchThirtyThousand();
  const total = performance.now() - started;
  const verdicts = rows.filter((r) => r.verdict !== "info");
  const missed = verdicts.filter((r) => r.verdict === "MISS").length;
  process.stdout.write(
    `\ncubeform benchmarks — ${machine}; medians of ${RUNS} alternating runs; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}; ${s(total)} in all\n\n`,
  );
  process.stdout.write(`${table()}\n`);
  process.stdout.write(`\n${verdicts.length - missed} PASS, ${missed} MISS\n`);
  if (Object.keys(profiles).length > 0) process.stdout.write(`${profileText()}\n`);
  writeFileSync(
    join(ROOT, "bench", "results.json"),
    `${JSON.stringify({ at: new Date().toISOString(), machine, runs: RUNS, loadavg: loadavg(), totalMs: total, rows, results, profiles }, null, 2)}\n`,
  );
  process.stdout.write("\nraw figures: bench/results.json\n");
}

await main();
