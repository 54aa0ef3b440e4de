// Start-up of two (or more) builds of the CLI side by side, in the same run: each command
// alternates with the others (the order rotates every round), medians of N runs, each beside
// `node -e 0`. For before/after figures of a change to the start-up path.
//
//   node bench/startup-ab.mjs [--runs 31] [--no-preload] LABEL=BIN … -- ARGS…
//   e.g. (a worktree of main at /tmp/before, both built with `npm run build`):
//   node bench/startup-ab.mjs before=/tmp/before/bin/cubeform.js after=bin/cubeform.js -- validate -f bench/.work/fleet-10.yaml
//
// Every run is `node [--import bench/rss-preload.mjs] BIN ARGS` with a clean environment (PATH,
// HOME, NO_COLOR and XDG_CACHE_HOME=bench/.work/cache-ab/LABEL: each build keeps its own code
// cache; one run of each fills it before timing). CPU is the process's own (the preload's
// process.resourceUsage at exit); --no-preload times the bare `node BIN` (no CPU figure), as a
// user runs it: the preload starts Node's ES module loader in every process, `node -e 0` included.
// The caller's CUBE_* variables are passed on, so two builds' plans can be timed against one
// emulator, e.g. `CUBE_API_URL=… CUBE_API_KEY=… CUBE_SPACE_ID=… node bench/startup-ab.mjs --runs 15
// before=… after=… -- plan -f FLEET --target c04321 --format json` (exit 2, changes, counts as a run).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PRELOAD = join(ROOT, "bench", "rss-preload.mjs");
const WORK = join(ROOT, "bench", ".work");

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const own = dash < 0 ? argv : argv.slice(0, dash);
const args = dash < 0 ? [] : argv.slice(dash + 1);
const runsAt = own.indexOf("--runs");
const RUNS = runsAt >= 0 ? Number(own[runsAt + 1]) : 31;
const PRELOADED = !own.includes("--no-preload");
const builds = own
  .filter((a, i) => a.includes("=") && own[i - 1] !== "--runs")
  .map((a) => ({ label: a.slice(0, a.indexOf("=")), bin: a.slice(a.indexOf("=") + 1) }));
if (builds.length === 0) throw new Error("usage: node bench/startup-ab.mjs [--runs N] [--no-preload] LABEL=BIN … -- ARGS…");

async function run(nodeArgs, label) {
  const usageFile = join(WORK, `ab-usage-${process.pid}.json`);
  rmSync(usageFile, { force: true });
  const cube = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("CUBE_")));
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NO_COLOR: "1",
    ...cube,
    XDG_CACHE_HOME: join(WORK, "cache-ab", label),
    BENCH_USAGE_FILE: usageFile,
  };
  const started = performance.now();
  const child = spawn(process.execPath, [...(PRELOADED ? ["--import", PRELOAD] : []), ...nodeArgs], {
    cwd: WORK,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stdout.resume();
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise((resolve) => child.once("close", resolve));
  const wallMs = performance.now() - started;
  if (code !== 0 && code !== 2) throw new Error(`${label}: exit ${code}: ${stderr}`);
  const usage = PRELOADED ? JSON.parse(readFileSync(usageFile, "utf8")) : undefined;
  return { wallMs, cpuMs: usage ? usage.userMs + usage.systemMs : NaN };
}

mkdirSync(WORK, { recursive: true });
rmSync(join(WORK, "cache-ab"), { recursive: true, force: true });
const measured = [{ label: "node -e 0", nodeArgs: ["-e", "0"] }, ...builds.map((b) => ({ label: b.label, nodeArgs: [b.bin, ...args] }))];
for (const m of measured.slice(1)) await run(m.nodeArgs, m.label);
const times = new Map(measured.map((m) => [m.label, []]));
for (let i = 0; i < RUNS; i++) {
  for (let j = 0; j < measured.length; j++) {
    const m = measured[(i + j) % measured.length];
    times.get(m.label).push(await run(m.nodeArgs, m.label));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const floor = times.get("node -e 0");
const [floorWall, floorCpu] = [median(floor.map((t) => t.wallMs)), median(floor.map((t) => t.cpuMs))];
process.stdout.write(`\`${args.join(" ")}\`, ${RUNS} runs each, alternating${PRELOADED ? "" : ", no preload"}\n`);
for (const m of measured) {
  const wall = median(times.get(m.label).map((t) => t.wallMs));
  const cpu = median(times.get(m.label).map((t) => t.cpuMs));
  const cpuText = PRELOADED ? `  CPU ${cpu.toFixed(0).padStart(4)} ms ${(cpu / floorCpu).toFixed(2)}×` : "";
  process.stdout.write(`${m.label.padEnd(12)} wall ${wall.toFixed(0).padStart(4)} ms ${(wall / floorWall).toFixed(2)}×${cpuText}\n`);
}
