/**
 * `npm run bench`: cubeform's benchmarks. Prints a table of figures with their targets and
 * writes bench/results.json (not committed; bench/RESULTS.md keeps one representative run).
 *
 *   npm run bench                  # ~2 minutes on 2 cores: 1,000 and 10,000 cubes
 *   npm run bench -- --no-profile  # skip the --cpu-prof runs made when a time target is missed
 *   (`--full` is still accepted: the 10,000-cube plan always runs against the emulator now.)
 *
 * Every measured cubeform run is a child process (`node bin/cubeform.js …`, transpiled from the
 * working tree into bench/.build) against the emulator in another child process
 * (bench/emulator-process.ts: the emulator's own HTTP path plus a request counter), so its
 * peak RSS is cubeform's alone. Fleets are seeded through the emulator's public API, in
 * process, into its state file (bench/fleet.ts seedStateFile), which the emulator then loads.
 * The emulator's own throughput at 10,000 cubes: bench/emulator-throughput.ts.
 */
import { cpus, loadavg, totalmem } from "node:os";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCli, ROOT } from "./build.js";
import { changeSet, desiredYaml, fleet, seedStateFile } from "./fleet.js";
import { runCli, startEmulatorProcess, WORK_DIR, type CliRun, type EmulatorChild } from "./measure.js";
import { summarizeProfile, type ProfileSummary } from "./profile.js";
import type { BenchStats } from "./emulator-process.js";

const ARGS = new Set(process.argv.slice(2));
const PROFILE = !ARGS.has("--no-profile");

const API_KEY = "kro_bench_0123456789abcdef";
const SPACE_ID = "space-bench";
/** The client's page size (client/cube-client.ts DEFAULT_PAGE_SIZE; the API's maximum). */
const PAGE_SIZE = 100;
const K = 25;
const APPLY_RATE = { limit: 10, windowMs: 2_000, flag: "10/2" };

type Verdict = "PASS" | "MISS" | "info";
interface Row {
  figure: string;
  measured: string;
  target: string;
  verdict: Verdict;
}

const rows: Row[] = [];
const results: Record<string, unknown> = {};
const profiles: Record<string, ProfileSummary> = {};

function row(figure: string, measured: string, target = "—", verdict: Verdict = "info"): void {
  rows.push({ figure, measured, target, verdict });
  process.stderr.write(`  ${verdict.padEnd(4)} ${figure}: ${measured}${target === "—" ? "" : ` (target ${target})`}\n`);
}
const pass = (ok: boolean): Verdict => (ok ? "PASS" : "MISS");
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (kb: number | null) => (kb === null ? "n/a" : `${Math.round(kb / 1024)} MB`);
const load = () => loadavg()[0]?.toFixed(1) ?? "?";
const log = (text: string) => process.stderr.write(`${text}\n`);

function minReads(cubes: number): number {
  return Math.ceil(cubes / PAGE_SIZE) + 2 * cubes;
}

function envFor(server: EmulatorChild): Record<string, string> {
  return { CUBE_API_URL: server.url, CUBE_API_KEY: server.apiKey, CUBE_SPACE_ID: server.spaceId };
}

interface PlanJson {
  summary: { mutations: number; add: number; change: number; destroy: number; unmanaged: number; blocked: number; estimatedSeconds: number };
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
  loadBefore: string;
  /** GETs by the emulator's own counter (admin request-counts), to cross-check the bench's. */
  emulatorGets: number;
}

async function timedPlan(server: EmulatorChild, file: string, label: string, nodeArgs: string[] = []): Promise<TimedPlan> {
  await server.resetStats();
  await server.admin("DELETE", "/requests");
  const loadBefore = load();
  const run = await runCli(["plan", "-f", file, "--rate-limit", "10/60", "--format", "json"], { env: envFor(server), nodeArgs, timeoutMs: 300_000 });
  const stats = await server.stats();
  const counts = (await server.admin("GET", "/request-counts")) as { requestCounts: Record<string, number> };
  const emulatorGets = counts.requestCounts.GET ?? 0;
  const plan = parsePlan(run, label);
  results[label] = { wallMs: run.wallMs, exitCode: run.exitCode, maxRssKb: run.maxRssKb, cliCpuMs: (run.userMs ?? 0) + (run.systemMs ?? 0), serverCpuMs: stats.cpuMs, serverHandlerMs: stats.handlerMs, reads: stats.gets, emulatorGets, readsByKind: stats.getsByKind, summary: plan.summary, loadavg1: loadBefore, stdoutBytes: run.stdout.length };
  return { run, stats, plan, loadBefore, emulatorGets };
}

async function profilePlan(server: EmulatorChild, file: string, name: string): Promise<void> {
  if (!PROFILE) return;
  const dir = join(WORK_DIR, "profiles", name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await runCli(["plan", "-f", file, "--rate-limit", "10/60", "--format", "json"], { env: envFor(server), nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir], timeoutMs: 300_000 });
  const file0 = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file0) return;
  profiles[name] = summarizeProfile(join(dir, file0), ROOT, 12);
}

// ------------------------------------------------------------------ scenarios

async function benchThousand(): Promise<void> {
  const N = 1_000;
  log(`\n== ${N} cubes (2 domains, 2 ports each); load average ${load()}`);
  const cubes = fleet(N);
  const statePath = join(WORK_DIR, `state-${N}.json`);
  const seeded = await seedStateFile(statePath, cubes, { apiKey: API_KEY, spaceId: SPACE_ID });
  row(`seed ${N} cubes through the emulator's API (in process, ${5 * N} POSTs)`, s(seeded.wallMs));
  const inSync = join(WORK_DIR, `fleet-${N}.yaml`);
  const changed = join(WORK_DIR, `fleet-${N}-k${K}.yaml`);
  const changes = changeSet(N, K);
  writeFileSync(inSync, desiredYaml(cubes));
  writeFileSync(changed, desiredYaml(cubes, changes));

  const emulator = await startEmulatorProcess({ statePath, rateLimit: { limit: 1_000_000, windowMs: 1_000 }, clockSpeed: 1_000 });
  try {
    // Plan, in sync, against the emulator: two runs, the faster counts (shared machine).
    const runs = [await timedPlan(emulator, inSync, "plan1k.emulator.run1"), await timedPlan(emulator, inSync, "plan1k.emulator.run2")];
    const best = runs.reduce((a, b) => (b.run.wallMs < a.run.wallMs ? b : a));
    const min = minReads(N);
    row(`plan ${N} vs emulator: wall (best of 2; load ${best.loadBefore})`, `${s(best.run.wallMs)} [${runs.map((r) => s(r.run.wallMs)).join(", ")}]`, "< 1.5 s", pass(best.run.wallMs < 1_500));
    row(`plan ${N} vs emulator: CPU cubeform / emulator`, `${s((best.run.userMs ?? 0) + (best.run.systemMs ?? 0))} / ${s(best.stats.cpuMs)}`);
    row(`plan ${N}: peak RSS of cubeform`, mb(best.run.maxRssKb));
    row(`plan ${N}: API reads (page size ${PAGE_SIZE})`, `${best.stats.gets} (${best.stats.getsByKind["cubes-page"]} pages + ${best.stats.getsByKind.domains} domains + ${best.stats.getsByKind["tcp-mappings"]} tcp + ${best.stats.getsByKind.space + best.stats.getsByKind.cube + best.stats.getsByKind.other} other)`, `= ${min} minimum`, pass(best.stats.gets === min));
    row(`plan ${N}: in sync (exit 0, 0 mutations, 0 changes)`, `exit ${best.run.exitCode}, ${best.plan.summary.mutations} mutations`, "exit 0", pass(best.run.exitCode === 0 && best.plan.summary.mutations === 0));

    if (best.run.wallMs >= 1_500) await profilePlan(emulator, inSync, "plan1k-emulator");

    // Plan with K changes.
    const k = await timedPlan(emulator, changed, "plan1k.k25");
    const c = changes.counts;
    row(
      `plan ${N} with K=${K} changes: summary.mutations`,
      `${k.plan.summary.mutations} (exit ${k.run.exitCode}; ${s(k.run.wallMs)})`,
      `= ${changes.minimalMutations} (${c.protect} protect, ${c["add-port"]} port, ${c["patch-domain"]} domain, ${c["power-off"]} power)`,
      pass(k.plan.summary.mutations === changes.minimalMutations && k.run.exitCode === 2),
    );

    // Apply the K changes with the emulator at a real-shaped limit scaled down in time.
    await emulator.admin("POST", "/rate-limit", { limit: APPLY_RATE.limit, windowMs: APPLY_RATE.windowMs });
    await emulator.resetStats();
    const apply = await runCli(["apply", "-f", changed, "--rate-limit", APPLY_RATE.flag, "--auto-approve", "--poll-interval", "100", "--wait-timeout", "60"], { env: envFor(emulator), timeoutMs: 180_000 });
    const applied = await emulator.stats();
    const byRoute: Record<string, number> = {};
    for (const m of applied.mutationLog) byRoute[`${m.method} ${m.route}`] = (byRoute[`${m.method} ${m.route}`] ?? 0) + 1;
    const floorMs = (Math.ceil(changes.minimalMutations / APPLY_RATE.limit) - 1) * APPLY_RATE.windowMs;
    results.apply = { exitCode: apply.exitCode, wallMs: apply.wallMs, mutations: applied.mutations, accepted: applied.mutationsAccepted, status429: applied.status429, byRoute, reads: applied.gets, minimal: changes.minimalMutations, planned: k.plan.summary.mutations, stderr: apply.stderr.slice(0, 2000) };
    row(`apply K=${K} at ${APPLY_RATE.flag} (both sides): exit code`, `exit ${apply.exitCode}${apply.exitCode === 0 ? "" : `: ${apply.stderr.trim().split("\n").pop() ?? ""}`}`, "exit 0", pass(apply.exitCode === 0));
    row(`apply: mutations sent (emulator log)`, `${applied.mutations} [${Object.entries(byRoute).map(([r, n]) => `${n}× ${r}`).join(", ")}]`, `= ${changes.minimalMutations} minimal = plan ${k.plan.summary.mutations}`, pass(applied.mutations === changes.minimalMutations && applied.mutations === k.plan.summary.mutations));
    row(`apply: 429 responses`, String(applied.status429), "0", pass(applied.status429 === 0));
    row(`apply: wall time (pacing floor ${s(floorMs)}; reads ${applied.gets} = plan + re-observe + waits)`, s(apply.wallMs));

    const after = await timedPlan(emulator, changed, "plan1k.afterApply");
    row(`plan after apply: converged`, `exit ${after.run.exitCode}, ${after.plan.summary.mutations} mutations`, "exit 0", pass(after.run.exitCode === 0 && after.plan.summary.mutations === 0));
  } finally {
    await emulator.stop();
  }
}

async function benchTenThousand(): Promise<void> {
  const N = 10_000;
  log(`\n== ${N} cubes (2 domains, 2 ports each); load average ${load()}`);
  const cubes = fleet(N);
  const statePath = join(WORK_DIR, `state-${N}.json`);
  const seeded = await seedStateFile(statePath, cubes, { apiKey: API_KEY, spaceId: SPACE_ID });
  row(`seed ${N} cubes through the emulator's API (in process, ${5 * N} POSTs)`, s(seeded.wallMs));
  const inSync = join(WORK_DIR, `fleet-${N}.yaml`);
  writeFileSync(inSync, desiredYaml(cubes));

  const emulator = await startEmulatorProcess({ statePath, rateLimit: { limit: 1_000_000, windowMs: 1_000 }, clockSpeed: 1_000 });
  try {
    const p = await timedPlan(emulator, inSync, "plan10k.emulator");
    const min = minReads(N);
    row(`plan ${N} vs emulator: wall (load ${p.loadBefore})`, s(p.run.wallMs), "< 10 s", pass(p.run.wallMs < 10_000));
    row(`plan ${N}: CPU cubeform / emulator`, `${s((p.run.userMs ?? 0) + (p.run.systemMs ?? 0))} / ${s(p.stats.cpuMs)}`);
    row(`plan ${N}: emulator CPU for the plan's ${p.stats.gets} reads`, s(p.stats.cpuMs), "< 3 s", pass(p.stats.cpuMs < 3_000));
    row(`plan ${N}: peak RSS of cubeform`, mb(p.run.maxRssKb), "< 300 MB", pass(p.run.maxRssKb !== null && p.run.maxRssKb < 300 * 1024));
    row(
      `plan ${N}: API reads (page size ${PAGE_SIZE})`,
      `${p.stats.gets} (${p.stats.getsByKind["cubes-page"]} pages + ${p.stats.getsByKind.domains} domains + ${p.stats.getsByKind["tcp-mappings"]} tcp); emulator's own count ${p.emulatorGets}`,
      `= ${min} minimum`,
      pass(p.stats.gets === min && p.emulatorGets === min),
    );
    row(`plan ${N}: in sync (exit 0)`, `exit ${p.run.exitCode}, ${p.plan.summary.mutations} mutations, ${Math.round(p.run.stdout.length / 1e6)} MB of JSON`, "exit 0", pass(p.run.exitCode === 0 && p.plan.summary.mutations === 0));
    if (p.run.wallMs >= 10_000 || (p.run.maxRssKb ?? 0) >= 300 * 1024) await profilePlan(emulator, inSync, "plan10k-emulator");
  } finally {
    await emulator.stop();
  }
}

function table(): string {
  const head = ["figure", "measured", "target", "result"];
  const body = rows.map((r) => [r.figure, r.measured, r.target, r.verdict]);
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
  log(`cubeform benchmarks — ${machine}`);
  const files = buildCli();
  log(`built the CLI from the working tree (${files} files) into bench/.build`);
  await benchThousand();
  await benchTenThousand();
  const total = performance.now() - started;
  const verdicts = rows.filter((r) => r.verdict !== "info");
  const missed = verdicts.filter((r) => r.verdict === "MISS").length;
  process.stdout.write(`\ncubeform benchmarks — ${machine}; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}; ${s(total)} in all\n\n`);
  process.stdout.write(`${table()}\n`);
  process.stdout.write(`\n${verdicts.length - missed} PASS, ${missed} MISS\n`);
  if (Object.keys(profiles).length > 0) process.stdout.write(`${profileText()}\n`);
  writeFileSync(join(ROOT, "bench", "results.json"), `${JSON.stringify({ at: new Date().toISOString(), machine, loadavg: loadavg(), totalMs: total, rows, results, profiles }, null, 2)}\n`);
  process.stdout.write("\nraw figures: bench/results.json\n");
}

await main();
