/** An emulator per test and an engine-ready client against it (real loopback HTTP). */
import { test as base } from "vitest";
import { createClient } from "../../client/index.js";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { memoryJournal, type ApplyOptions, type DesiredState } from "../../engine/index.js";

export const RATE = { limit: 1000, windowMs: 60_000 };

export type EngineClient = ReturnType<typeof createClient>;

export function clientFor(emulator: RunningEmulator, retry?: { maxRetries: number }): EngineClient {
  return createClient({
    baseUrl: emulator.url,
    apiKey: emulator.apiKey,
    spaceId: emulator.spaceId,
    rateLimit: RATE,
    retry: { baseDelayMs: 5, ...retry },
  });
}

export function applyOptions(emulator: RunningEmulator, client: EngineClient, desired: DesiredState): ApplyOptions {
  return {
    client,
    spaceId: emulator.spaceId,
    journal: memoryJournal(),
    secrets: (ref) => ({ WEB_PASS: "s3cret-pass" })[ref.env],
    cubeIds: new Map(),
    waitTimeoutMs: 20_000,
    pollIntervalMs: 10,
    desired,
  };
}

export const test = base.extend<{ emulator: RunningEmulator; client: EngineClient }>({
  emulator: async ({}, use) => {
    const emulator = await startEmulator({ clockSpeed: 200, rateLimit: RATE });
    await use(emulator);
    await emulator.close();
  },
  client: async ({ emulator }, use) => {
    const client = clientFor(emulator);
    await use(client);
    await client.close();
  },
});
