/**
 * Issue 37: a real `watch` keeping its round history, on an in-sync fleet in the emulator: its resident memory once the history is full
 * (100 rounds) against early on, and GET / of its status page meanwhile.
 *
 *   npx tsx bench/status-page-watch.ts [cubes=1000] [rounds=110]
 *
 * The CLI is built from the working tree into bench/.build (bench/build.ts) and run as a user runs it (`watch -f FILE --interval 200ms
 * --metrics-port 0`) against the bench emulator process seeded with CUBES cubes (2 domains and 2 ports each). VmRSS and VmHWM (peak) are read
 * from /proc at round 10 and at round ROUNDS; GET / is timed (median of 50) at the end.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { BUILT_CLI, buildCli } from "./build.js";
import { desiredYaml, fleet, seedStateFile } from "./fleet.js";
import { startEmulatorProcess, WORK_DIR } from "./measure.js";

const CUBES = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 110);
const API_KEY = "kro_bench_0123456789abcdef";
const SPACE_ID = "space-bench";

function memoryMb(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

async function main(): Promise<void> {
  buildCli();
  mkdirSync(WORK_DIR, { recursive: true });
  const cubes = fleet(CUBES);
  const statePath = join(WORK_DIR, `status-page-state-${CUBES}.json`);
  await seedStateFile(statePath, cubes, { apiKey: API_KEY, spaceId: SPACE_ID });
  const file = join(WORK_DIR, `status-page-fleet-${CUBES}.yaml`);
  writeFileSync(file, desiredYaml(cubes));
  const emulator = await startEmulatorProcess({ statePath, rateLimit: { limit: 1_000_000, windowMs: 1_000 }, clockSpeed: 1_000 });
  const child = spawn(
    process.execPath,
    [BUILT_CLI, "watch", "-f", file, "--interval", "200ms", "--rate-limit", "10/60", "--metrics-port", "0"],
    {
      cwd: WORK_DIR,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NO_COLOR: "1",
        XDG_STATE_HOME: join(WORK_DIR, "state"),
        CUBE_API_URL: emulator.url,
        CUBE_API_KEY: emulator.apiKey,
        CUBE_SPACE_ID: emulator.spaceId,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let base = "";
  createInterface({ input: child.stderr }).on("line", (line) => {
    base ||= /status page: (http:\/\/[^ ]+)\//.exec(line)?.[1] ?? "";
  });
  const at: Record<number, { rss: number; peak: number }> = {};
  try {
    await new Promise<void>((resolve, reject) => {
      let rounds = 0;
      createInterface({ input: child.stdout }).on("line", (line) => {
        if (!/\] round \d+: /.test(line)) return;
        rounds++;
        if (rounds === 10 || rounds === ROUNDS) at[rounds] = memoryMb(child.pid ?? 0);
        if (rounds >= ROUNDS) resolve();
      });
      child.once("exit", (code) => reject(new Error(`watch exited early (code ${code})`)));
    });
    const times: number[] = [];
    let rounds = 0;
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      const response = await fetch(`${base}/`);
      await response.text();
      if (i >= 10) times.push(performance.now() - t0);
    }
    rounds = ((await (await fetch(`${base}/status`)).json()) as { rounds: unknown[] }).rounds.length;
    times.sort((a, b) => a - b);
    const early = at[10]!;
    const late = at[ROUNDS]!;
    console.log(
      `watch -f on ${CUBES} in-sync cubes: RSS ${early.rss.toFixed(0)} MB at round 10, ${late.rss.toFixed(0)} MB at round ${ROUNDS} (history: ${rounds} rounds kept); peak RSS ${late.peak.toFixed(0)} MB`,
    );
    console.log(
      `GET / of that watch: median ${times[Math.floor(times.length / 2)]!.toFixed(2)} ms over ${times.length} requests (while rounds run every 200 ms)`,
    );
  } finally {
    child.kill("SIGTERM");
    await emulator.stop();
  }
}

await main();
