/**
 * Issue 21: a `watch --repo` round on an unchanged commit against a `watch -f` round, both at
 * 1,000 in-sync cubes: the CLI built from the working tree (bench/build.ts) against the emulator
 * in another process, alternating, CPU per round after the first. The CPU includes the git
 * processes the round waits for (cutime/cstime): the machine running watch pays for them (with
 * file:// that includes git-upload-pack, the "server" side, so this errs against --repo).
 * Not run by `npm test`: `npx tsx bench/git-source.ts [--runs N] [--rounds N]`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildCli } from "./build.js";
import { desiredYaml, fleet, seedStateFile } from "./fleet.js";
import { startEmulatorProcess, watchRounds, WORK_DIR } from "./measure.js";

const flag = (name: string, fallback: number): number => Number(process.argv[process.argv.indexOf(name) + 1] ?? fallback) || fallback;
const RUNS = flag("--runs", 3);
const ROUNDS = flag("--rounds", 10);
const N = 1_000;
const ids = { apiKey: "kro_bench_0123456789abcdef", spaceId: "space-bench" };

mkdirSync(WORK_DIR, { recursive: true });
const root = mkdtempSync(join(WORK_DIR, "git-source-"));
const env = { PATH: process.env.PATH ?? "", HOME: join(root, "home"), GIT_CONFIG_NOSYSTEM: "1", XDG_CACHE_HOME: join(root, "cache") };
mkdirSync(env.HOME);
const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, env, encoding: "utf8" });
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

try {
  buildCli();
  const cubes = fleet(N);
  const statePath = join(root, "state.json");
  await seedStateFile(statePath, cubes, ids);
  const file = join(root, "cubeform.yaml");
  writeFileSync(file, desiredYaml(cubes));
  const bare = join(root, "remote.git");
  git(root, "init", "-q", "--bare", "-b", "main", bare);
  git(root, "init", "-q", "-b", "main", join(root, "work"));
  writeFileSync(join(root, "work", "cubeform.yaml"), desiredYaml(cubes));
  git(join(root, "work"), "add", "-A");
  git(join(root, "work"), "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "fleet");
  git(join(root, "work"), "push", "-q", bare, "HEAD:refs/heads/main");

  const emulator = await startEmulatorProcess({ statePath, rateLimit: { limit: 1_000_000, windowMs: 1_000 }, clockSpeed: 1_000 });
  try {
    const run = { ...env, CUBE_API_URL: emulator.url, CUBE_API_KEY: emulator.apiKey, CUBE_SPACE_ID: emulator.spaceId };
    const common = ["--interval", "200ms", "--rate-limit", "10/60"];
    const sources = { file: ["-f", file], repo: ["--repo", pathToFileURL(bare).href] };
    const perRound: Record<keyof typeof sources, number[]> = { file: [], repo: [] };
    for (let i = 0; i < RUNS; i++) {
      for (const which of ["file", "repo"] as const)
        perRound[which].push(...(await watchRounds([...sources[which], ...common], ROUNDS, { env: run, cwd: root })).roundCpuMs);
    }
    const [file1, repo1] = [median(perRound.file), median(perRound.repo)];
    console.log(`watch -f, ${N} in-sync cubes: ${file1.toFixed(0)} ms CPU per round (median of ${perRound.file.length})`);
    console.log(
      `watch --repo, ${N} in-sync cubes, unchanged commit: ${repo1.toFixed(0)} ms CPU per round, git's included (median of ${perRound.repo.length})`,
    );
    console.log(`ratio --repo / -f: ${(repo1 / file1).toFixed(2)}× (target ≤ 1.2×)`);
  } finally {
    await emulator.stop();
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
