import { describe, expect, test } from "vitest";
import { newIdempotencyKey, TerminationProtectedError } from "../../client/index.js";
import { cubeBody, useEmulator } from "./support/emulator.js";

const start = useEmulator();

describe("deleting a protected cube", () => {
  test("throws the typed 409 carrying the cube; after unprotecting, delete succeeds", async () => {
    const { emulator, client } = await start();
    const cube = await client.createCube(cubeBody("guarded", { terminationProtection: true }), { idempotencyKey: newIdempotencyKey() });
    expect(cube.terminationProtection).toBe(true);

    const err = await client.deleteCube(cube.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerminationProtectedError);
    const typed = err as TerminationProtectedError;
    expect(typed).toMatchObject({ code: "termination_protected", status: 409, method: "DELETE", cubeId: cube.id, retries: 0 });
    expect(typed.cube.id).toBe(cube.id);
    expect(typed.cube.terminationProtectionChangedAt).toBe(cube.terminationProtectionChangedAt);
    expect(typed.cube.terminationProtectionChangedBy).toBe(cube.terminationProtectionChangedBy);
    expect(typed.message).toMatch(/termination protection/i);

    const unprotected = await client.setTerminationProtection(cube.id, false);
    expect(unprotected.terminationProtection).toBe(false);
    await client.deleteCube(cube.id);
    expect(
      emulator.admin
        .requests()
        .filter((r) => r.method === "DELETE")
        .map((r) => r.status),
    ).toEqual([409, 200]);
  });
});
