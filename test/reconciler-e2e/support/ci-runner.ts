/**
 * The examples in examples/ci/, and their `run:` scripts run as a GitHub runner runs them: bash -eo pipefail with its own
 * GITHUB_OUTPUT and step summary, `npx --no-install cubeform` being the built bin and `gh` a shim that logs its arguments.
 */
import { spawn } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { testCacheHome } from "../../support/cache-home.js";
import { BIN, tempDir, type Project } from "../support.js";

export interface WorkflowStep {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string>;
  run?: string;
  env?: Record<string, string>;
  "continue-on-error"?: boolean;
}

export interface WorkflowJob {
  if?: string;
  permissions?: Record<string, string>;
  steps: WorkflowStep[];
}

/** The text of examples/ci/`name`. */
export function exampleCi(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../../../examples/ci/${name}`, import.meta.url)), "utf8");
}

/** The step of `job` named `name`; it must run a script. */
export function scriptStep(job: WorkflowJob, name: string): WorkflowStep {
  const found = job.steps.find((s) => s.name === name);
  if (found?.run === undefined) throw new Error(`no run step named ${name}`);
  return found;
}

/** What `gh` does after logging its arguments: a sh snippet, given the log's path. */
export type GhShim = (ghLog: string) => string;

/** A folder to put first on PATH: `npx --no-install cubeform …` runs the built bin; `gh` appends "$*" to ghLog, then runs `gh`. */
export function ciShims(gh: GhShim): { path: string; ghLog: string } {
  const dir = tempDir();
  const ghLog = join(dir, "gh.log");
  writeFileSync(
    join(dir, "npx"),
    `#!/bin/sh\n[ "$1" = --no-install ] && [ "$2" = cubeform ] || { echo "unexpected: npx $*" >&2; exit 127; }\nshift 2\nexec "${process.execPath}" "${BIN}" "$@"\n`,
  );
  writeFileSync(join(dir, "gh"), `#!/bin/sh\necho "$*" >> "${ghLog}"\n${gh(ghLog)}`);
  writeFileSync(ghLog, "");
  chmodSync(join(dir, "npx"), 0o755);
  chmodSync(join(dir, "gh"), 0o755);
  return { path: dir, ghLog };
}

export interface StepRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** What the step wrote to GITHUB_OUTPUT. */
  outputs: Record<string, string>;
  /** What the step wrote to GITHUB_STEP_SUMMARY. */
  summary: string;
  ghLog: string;
}

/** Runs `step`'s script in `p`'s folder as the runner does, with `env` (the step's `env:`) over the runner's variables. */
export async function runStep(step: WorkflowStep, p: Project, env: Record<string, string>, gh: GhShim): Promise<StepRun> {
  const runner = tempDir();
  const files = { GITHUB_OUTPUT: join(runner, "output"), GITHUB_STEP_SUMMARY: join(runner, "summary.md") };
  for (const file of Object.values(files)) writeFileSync(file, "");
  const script = join(runner, "step.sh");
  writeFileSync(script, step.run ?? "");
  const bins = ciShims(gh);
  const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
    cwd: p.cwd,
    env: {
      PATH: `${bins.path}:${process.env.PATH ?? ""}`,
      NO_COLOR: "1",
      RUNNER_TEMP: runner,
      XDG_STATE_HOME: p.env.XDG_STATE_HOME,
      ...testCacheHome(),
      XDG_CONFIG_HOME: runner,
      ...files,
      GH_LOG: bins.ghLog,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const outputs = Object.fromEntries(
    readFileSync(files.GITHUB_OUTPUT, "utf8")
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  return { code, stdout, stderr, outputs, summary: readFileSync(files.GITHUB_STEP_SUMMARY, "utf8"), ghLog: bins.ghLog };
}

/** The environment a step gets with the repository's secrets: the project's emulator and key. */
export function apiEnv(p: Project): Record<string, string> {
  return { CUBE_API_KEY: p.env.CUBE_API_KEY ?? "", CUBE_API_URL: p.env.CUBE_API_URL ?? "", CUBE_SPACE_ID: p.emu.spaceId };
}
