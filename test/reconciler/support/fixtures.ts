/** Shared fixtures: an emulator per test, and the CLI pointed at it through the environment. */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test as base } from "vitest";
import { createClient } from "../../../client/index.js";
import { startEmulator, type RunningEmulator } from "../../../emulator/index.js";
import { runCli, tempProject, type CliResult } from "./cli.js";

export const FLEET_YAML = fileURLToPath(new URL("../../../examples/fleet.yaml", import.meta.url));

/** Fast enough for tests: a fast clock, and a rate limit the CLI is told about (so pacing matches). */
export const FAST = ["--rate-limit", "1000/60"];
export const FAST_APPLY = [...FAST, "--poll-interval", "20"];

export interface CliFixture {
  emulator: RunningEmulator;
  /** A project directory holding cubeform.yaml (a copy of examples/fleet.yaml). */
  cwd: string;
  env: Record<string, string>;
  cli(argv: string[], options?: { ttyInput?: string; env?: Record<string, string> }): Promise<CliResult>;
  /** A client for out-of-band changes, as another person or tool would make them. */
  api: ReturnType<typeof createClient>;
  mutations(): number;
}

export const test = base.extend<{ fx: CliFixture }>({
  fx: async ({}, use) => {
    const emulator = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 1000, windowMs: 60_000 } });
    const cwd = tempProject();
    copyFileSync(FLEET_YAML, join(cwd, "cubeform.yaml"));
    const env = { CUBE_API_URL: emulator.url, CUBE_API_KEY: emulator.apiKey };
    const api = createClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      spaceId: emulator.spaceId,
      rateLimit: { limit: 1000, windowMs: 60_000 },
    });
    const fx: CliFixture = {
      emulator,
      cwd,
      env,
      api,
      cli: (argv, options = {}) =>
        runCli(argv, { cwd, env: { ...env, ...options.env }, ...(options.ttyInput !== undefined ? { ttyInput: options.ttyInput } : {}) }),
      mutations: () => emulator.admin.requests().filter((r) => r.mutating).length,
    };
    await use(fx);
    await api.close();
    await emulator.close();
  },
});
