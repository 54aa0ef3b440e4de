import { describe, expect, test } from "vitest";
import { newIdempotencyKey } from "../../client/index.js";
import { cubeBody, useEmulator } from "./support/emulator.js";

const start = useEmulator();

describe("a create whose response is lost after the server committed it", () => {
  test("is resent with the same key, answered from the replay store, and exactly one cube exists", async () => {
    const { emulator, client } = await start({}, { retry: { baseDelayMs: 1 } });
    emulator.admin.injectFault({ kind: "drop-after-commit", method: "POST", path: "/cubes$" });
    const key = newIdempotencyKey();

    const cube = await client.createCube(cubeBody("replayed"), { idempotencyKey: key });

    const posts = emulator.admin.requests().filter((r) => r.method === "POST");
    expect(posts.map((r) => [r.idempotencyKey, r.replayed])).toEqual([
      [key, false],
      [key, true],
    ]);
    const cubes = await client.listCubes();
    expect(cubes.map((c) => c.id)).toEqual([cube.id]);
    expect(client.stats).toMatchObject({ mutations: 2, retries: 1 });
  });

  test("without retries the loss surfaces as a network error (and the cube exists: the reason keys are needed)", async () => {
    const { emulator, client } = await start({}, { retry: { maxRetries: 0 } });
    emulator.admin.injectFault({ kind: "drop-after-commit", method: "POST", path: "/cubes$" });
    await expect(client.createCube(cubeBody("lost"), { idempotencyKey: newIdempotencyKey() })).rejects.toMatchObject({
      code: "network_error",
    });
    expect(await client.listCubes()).toHaveLength(1);
  });
});
