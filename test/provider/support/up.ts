/**
 * Runs up-runner.ts (a `pulumi up` through the real plugin) on a program in a child process, as
 * often as a test likes against one state file. The program's directory gets a node_modules that
 * resolves `cubeform` (this repository) and `@pulumi/pulumi` (the same copy the provider uses).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll } from "vitest";
import { startEmulator, type RunningEmulator } from "../../../emulator/index.js";
import { REPO_ROOT } from "../harness.js";
import type { UpStep } from "./up-runner.js";

const run = promisify(execFile);

export interface UpResult {
  steps: UpStep[];
  outputs: Record<string, unknown>;
  error: string | null;
  pluginStderr: string;
}

export interface UpStack {
  /** Where the program lives (write index.ts and its files here). */
  dir: string;
  statePath: string;
  /** `runs` consecutive `pulumi up` of the program (one process and plugin for all: cheaper). */
  up(program: string, options?: { programConfig?: Record<string, string>; runs?: number }): Promise<UpResult[]>;
  dispose(): void;
}

/** A program directory whose imports resolve like an installed project's (an ESM project, as examples/pulumi). */
export function programDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-program-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  mkdirSync(join(dir, "node_modules", "@pulumi"), { recursive: true });
  symlinkSync(REPO_ROOT, join(dir, "node_modules", "cubeform"), "dir");
  symlinkSync(join(REPO_ROOT, "node_modules", "@pulumi", "pulumi"), join(dir, "node_modules", "@pulumi", "pulumi"), "dir");
  return dir;
}

export function upStack(providerConfig: Record<string, string>, project = "adopted"): UpStack {
  const dir = programDir();
  const statePath = join(dir, "state.json");
  return {
    dir,
    statePath,
    async up(program, options = {}) {
      const programConfig = Object.fromEntries(
        Object.entries(options.programConfig ?? {}).map(([key, value]) => [`${project}:${key}`, value]),
      );
      // Pulumi runs a program in its own directory.
      const { stdout } = await run(
        process.execPath,
        [
          "--import",
          pathToFileURL(join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href,
          join(REPO_ROOT, "test/provider/support/up-runner.ts"),
          join(dir, program),
        ],
        {
          cwd: dir,
          env: {
            ...process.env,
            PULUMI_NODEJS_PROJECT: project,
            PULUMI_CONFIG: JSON.stringify(programConfig),
            UP_STATE: statePath,
            UP_PROVIDER_CONFIG: JSON.stringify(providerConfig),
            UP_RUNS: String(options.runs ?? 1),
          },
          timeout: 60_000,
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      return stdout
        .trim()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as UpResult);
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An emulator and an up-stack against it shared by the file's tests (a fast budget: no pacing waits), with
 * `files` written into the program's directory; `keep` receives both. Disposed of after the tests.
 */
export function upStackForFile(
  project: string,
  files: Record<string, string>,
  keep: (file: { emulator: RunningEmulator; stack: UpStack }) => void,
): void {
  let emulator: RunningEmulator | undefined;
  let stack: UpStack | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ clockSpeed: 100, rateLimit: { limit: 1000, windowMs: 60_000 } });
    const reach = { "cubeform:apiKey": emulator.apiKey, "cubeform:apiUrl": emulator.url };
    stack = upStack({ ...reach, "cubeform:rateLimit": "1000/60", "cubeform:pollInterval": "0.02" }, project);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(stack.dir, name), text);
    keep({ emulator, stack });
  });
  afterAll(async () => {
    stack?.dispose();
    await emulator?.close();
  });
}
