/**
 * The source step of a watch round at 1,000 cubes (issue 21): a file-based round (LoadCache: the
 * file is read and compared, not parsed again) against a --repo round on an unchanged commit
 * (one `git fetch`, no file read). CPU includes the git child processes
 * (/proc/self/stat cutime+cstime). Not run by `npm test`: `npx tsx bench/git-source.ts`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { GitSource } from "../desired/git-source.js";
import { LoadCache } from "../desired/load.js";
import { RepoLoader } from "../desired/repo-load.js";
import { loadDesiredFiles } from "../desired/sources.js";
import { desiredYaml, fleet } from "./fleet.js";

const ROUNDS = 40;
const root = mkdtempSync(join(tmpdir(), "cubeform-bench-git-"));
const env = { PATH: process.env.PATH ?? "", HOME: join(root, "home"), GIT_CONFIG_NOSYSTEM: "1", XDG_CACHE_HOME: join(root, "cache") };
mkdirSync(env.HOME);
const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, env, encoding: "utf8" });

/** CPU ms of this process and its waited-for children. */
function cpuMs(): number {
  const own = process.cpuUsage();
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  const childTicks = Number(fields[13]) + Number(fields[14]); // cutime, cstime (fields 16, 17)
  return (own.user + own.system) / 1000 + childTicks * 10;
}

async function measure(label: string, round: () => Promise<unknown>): Promise<number> {
  await round(); // the first round loads; later ones are what a steady watch costs
  const startCpu = cpuMs();
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) await round();
  const cpu = (cpuMs() - startCpu) / ROUNDS;
  console.log(`${label}: ${cpu.toFixed(1)} ms CPU, ${((performance.now() - started) / ROUNDS).toFixed(1)} ms wall per round (${ROUNDS} rounds)`);
  return cpu;
}

try {
  const yaml = desiredYaml(fleet(1_000));
  const file = join(root, "cubeform.yaml");
  writeFileSync(file, yaml);
  const bare = join(root, "remote.git");
  const work = join(root, "work");
  git(root, "init", "-q", "--bare", "-b", "main", bare);
  git(root, "init", "-q", "-b", "main", work);
  writeFileSync(join(work, "cubeform.yaml"), yaml);
  git(work, "add", "-A");
  git(work, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "fleet");
  git(work, "push", "-q", bare, "HEAD:refs/heads/main");

  const cache = new LoadCache();
  const fileRound = await measure("file-based round (1,000 cubes, unchanged file)", () => loadDesiredFiles({ files: [file], cwd: root, env, cache }));
  const repo = new RepoLoader({ source: new GitSource({ url: pathToFileURL(bare).href, cwd: root, env, timeoutMs: 60_000 }), path: "cubeform.yaml", env });
  const repoRound = await measure("--repo round (1,000 cubes, unchanged commit: one git fetch, no load)", () => repo.load());
  console.log(`ratio --repo / file: ${(repoRound / fileRound).toFixed(2)}× (source step only; the observe and plan of a round are the same either way)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
