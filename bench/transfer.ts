/**
 * `npm run bench:transfer`: archive transfers through the emulator on loopback, as a user runs
 * them: `cubeform backup download ID --out FILE` of a backup archive, then `cubeform upload FILE`
 * of the same bytes as a new cube (multipart import, 4 parts at once), at 256 MiB and 1 GiB.
 * Prints wall time, throughput and the cubeform process's peak RSS, each beside its floor: the
 * same transfer done by bench/floor/transfer-floor.mjs (the same HTTP library, undici, streamed
 * to/from the file, nothing else). "Flat" means the peak does not grow with the archive: the
 * 256 MiB and 1 GiB rows show the same peak. Not part of `npm run bench` (needs ~2 GiB free disk).
 *
 *   npm run bench:transfer                          # 256 MiB and 1 GiB
 *   npm run bench:transfer -- --sizes 64,1024       # sizes in MiB
 *
 * The measured process is the bin transpiled from the working tree (bench/build.ts), run with the
 * usage preload (bench/rss-preload.mjs) that records its peak RSS at exit. The emulator runs in
 * this process (real time, clock speed 1), so its CPU and memory are not the measured process's.
 */
import { cpus, loadavg, totalmem } from "node:os";
import { mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { startEmulator } from "../emulator/index.js";
import type { RunningEmulator as Emulator } from "../emulator/types.js";
import { buildCli, ROOT } from "./build.js";
import { runCli, runNode, WORK_DIR, type CliRun } from "./measure.js";

const MIB = 1024 * 1024;
const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGJlbmNoLXRyYW5zZmVyLWtleS1mb3ItY3ViZWZvcm0 bench@cubeform";
const CONCURRENCY = 4;
const RSS_TARGET_MB = 200;
const FLOOR = join(ROOT, "bench", "floor", "transfer-floor.mjs");
const RATE = ["--rate-limit", "1000000/1"];
const TIMEOUT_MS = 900_000;

function sizesFrom(argv: string[]): number[] {
  const at = argv.indexOf("--sizes");
  return at >= 0
    ? (argv[at + 1] ?? "")
        .split(",")
        .map(Number)
        .filter((n) => n > 0)
    : [256, 1024];
}

const rssMb = (run: CliRun) => (run.maxRssKb === null ? NaN : run.maxRssKb / 1024);

function line(label: string, bytes: number, run: CliRun, floor?: CliRun): string {
  const seconds = run.wallMs / 1000;
  const measured = `${label.padEnd(34)} ${String(bytes / MIB).padStart(5)} MiB  wall ${seconds.toFixed(2).padStart(6)} s  ${(bytes / MIB / seconds).toFixed(1).padStart(6)} MiB/s  peak RSS ${rssMb(run).toFixed(0).padStart(4)} MB`;
  if (!floor) return measured;
  return `${measured}   | floor: wall ${(floor.wallMs / 1000).toFixed(2)} s, ${(bytes / MIB / (floor.wallMs / 1000)).toFixed(1)} MiB/s, peak RSS ${rssMb(floor).toFixed(0)} MB`;
}

function check(run: CliRun, what: string): CliRun {
  if (run.exitCode !== 0) throw new Error(`${what}: exit ${run.exitCode}\n${run.stderr.slice(-2000)}`);
  return run;
}

async function api<T>(emu: Emulator, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${emu.url}/spaces/${emu.spaceId}${path}`, {
    method,
    headers: { "x-api-key": emu.apiKey, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The floor's upload: an import started over the API, its parts sent by the floor, then canceled. */
async function uploadFloor(emu: Emulator, file: string, bytes: number, name: string): Promise<CliRun> {
  const started = await api<{ importId: string; chunkSizeBytes: number; parts: { partNumber: number; url: string }[] }>(
    emu,
    "POST",
    "/cubes/imports",
    {
      name,
      fileSizeBytes: bytes,
      sshPublicKey: SSH_KEY,
    },
  );
  const urls = [...started.parts].sort((a, b) => a.partNumber - b.partNumber).map((p) => p.url);
  const run = await runNode([FLOOR, "upload", file, String(started.chunkSizeBytes), String(CONCURRENCY), ...urls], {
    env: {},
    timeoutMs: TIMEOUT_MS,
  });
  await api(emu, "DELETE", `/cubes/imports/${started.importId}`);
  return check(run, "upload floor");
}

async function main(): Promise<void> {
  const sizes = sizesFrom(process.argv.slice(2));
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}`;
  console.log(`cubeform transfer benchmark — ${machine}; load average ${loadavg()[0]?.toFixed(1)}`);
  mkdirSync(WORK_DIR, { recursive: true });
  buildCli();
  const emu = await startEmulator({ clockSpeed: 1, rateLimit: { limit: 1_000_000, windowMs: 1_000 } });
  const env = { CUBE_API_URL: emu.url, CUBE_API_KEY: emu.apiKey };
  const peaks: number[] = [];
  try {
    const { cube } = await api<{ cube: { id: string } }>(emu, "POST", "/cubes", {
      name: "source",
      image: "ubuntu-24.04",
      resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
      sshPublicKey: SSH_KEY,
    });
    const idle = emu.admin.createBackup({ cubeId: cube.id, name: "baseline", sizeBytes: MIB });
    const show = check(await runCli(["backup", "show", idle.id, ...RATE], { env }), "backup show");
    console.log(`baseline: \`cubeform backup show\` (no transfer) peak RSS ${rssMb(show).toFixed(0)} MB\n`);
    for (const mib of sizes) {
      const bytes = mib * MIB;
      const backup = emu.admin.createBackup({ cubeId: cube.id, name: `bench-${mib}`, sizeBytes: bytes });
      const file = join(WORK_DIR, `bench-${mib}.cube`);
      const floorFile = join(WORK_DIR, `bench-${mib}-floor.cube`);
      for (const f of [file, `${file}.part`, floorFile]) rmSync(f, { force: true });

      const download = check(
        await runCli(["backup", "download", backup.id, "--out", file, ...RATE], { env, timeoutMs: TIMEOUT_MS }),
        "backup download",
      );
      if (statSync(file).size !== bytes) throw new Error(`download: ${statSync(file).size} bytes, expected ${bytes}`);
      const link = await api<{ url: string }>(emu, "GET", `/backups/${backup.id}/download`);
      const downloadFloor = check(
        await runNode([FLOOR, "download", link.url, floorFile], { env: {}, timeoutMs: TIMEOUT_MS }),
        "download floor",
      );
      rmSync(floorFile, { force: true });
      console.log(line("cubeform backup download", bytes, download, downloadFloor));

      const upload = check(
        await runCli(["upload", file, "--name", `bench-${mib}`, "--ssh-key", SSH_KEY, "--concurrency", String(CONCURRENCY), ...RATE], {
          env,
          timeoutMs: TIMEOUT_MS,
        }),
        "upload",
      );
      const floor = await uploadFloor(emu, file, bytes, `floor-${mib}`);
      console.log(line(`cubeform upload (${CONCURRENCY} parts at once)`, bytes, upload, floor));
      peaks.push(rssMb(download), rssMb(upload));
      rmSync(file, { force: true });
    }
  } finally {
    await emu.close();
  }
  const peak = Math.max(...peaks);
  console.log(
    `\nhighest peak RSS of a transfer: ${peak.toFixed(0)} MB (target: flat across sizes, well under ${RSS_TARGET_MB} MB) — ${peak < RSS_TARGET_MB ? "PASS" : "MISS"}`,
  );
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
}

await main();
