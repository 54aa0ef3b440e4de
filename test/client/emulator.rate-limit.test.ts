import { describe, expect, test } from "vitest";
import { newIdempotencyKey } from "../../client/index.js";
import { cubeBody, useEmulator } from "./support/emulator.js";

const start = useEmulator();

/** 5 creates, then 25 protection toggles: 30 mutations in all. */
async function thirtyMutations(client: Awaited<ReturnType<typeof start>>["client"]): Promise<void> {
  const cubes = await Promise.all(
    Array.from({ length: 5 }, (_, i) => client.createCube(cubeBody(`rl-${i}`), { idempotencyKey: newIdempotencyKey() })),
  );
  await Promise.all(Array.from({ length: 25 }, (_, i) => client.setTerminationProtection(cubes[i % 5]!.id, i % 2 === 0)));
}

describe("mutations against the emulator's rate limit (10 per 1000 ms)", () => {
  test("with pacing matched to the limit, 30 mutations see zero 429", async () => {
    const { emulator, client } = await start({ rateLimit: { limit: 10, windowMs: 1000 } });
    await thirtyMutations(client);
    const statuses = emulator.admin
      .requests()
      .filter((r) => r.mutating)
      .map((r) => r.status);
    expect(statuses).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expect(client.stats).toMatchObject({ mutations: 30, rateLimited: 0, retries: 0 });
  });

  test("with pacing looser than the server, 429s are absorbed and every call succeeds", async () => {
    const { emulator, client } = await start({ rateLimit: { limit: 10, windowMs: 1000 } }, { rateLimit: { limit: 1000, windowMs: 1000 } });
    await thirtyMutations(client);
    const mutating = emulator.admin.requests().filter((r) => r.mutating);
    const refused = mutating.filter((r) => r.status === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect(mutating.filter((r) => r.status < 300)).toHaveLength(30);
    expect(client.stats.rateLimited).toBe(refused);
  });
});
