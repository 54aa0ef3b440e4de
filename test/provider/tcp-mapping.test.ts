/** A TcpMapping through the plugin: where to connect, every change a delete-first replacement. */
import { describe, expect, it } from "vitest";
import { DIFF_NONE, DIFF_SOME } from "./harness.js";
import { stackWithCubeForFile, type Resource, type Stack } from "./support/stack.js";

let stack: Stack;
let cube: Resource;
stackWithCubeForFile("db", (file) => ({ stack, cube } = file));

describe("TcpMapping resource", () => {
  let postgres: Resource;
  const POSTGRES = { cubePort: 5432, label: "postgres", allow: ["203.0.113.0/24", "198.51.100.7"] };
  const inputs = (extra: Record<string, unknown> = {}) => ({ cubeId: cube.id, ...POSTGRES, ...extra });

  it("publishes the port and outputs where to connect", async () => {
    postgres = await stack.create("TcpMapping", "postgres", inputs());
    expect(postgres.id).toBe(`${cube.id}/${postgres.outs.mappingId as string}`);
    expect(postgres.outs.hostPort).toBeGreaterThanOrEqual(30000);
    expect(postgres.outs.hostPort).toBeLessThanOrEqual(50000);
    expect(postgres.outs.host).toEqual(expect.any(String));
    expect(postgres.outs).toMatchObject({ cubeId: cube.id, cubePort: 5432, label: "postgres", udp: true });
  });

  it("reports no change for the same inputs, whatever the order of the allow-list", async () => {
    expect((await stack.diff(postgres, inputs({ allow: ["198.51.100.7", "203.0.113.0/24"] }))).changes).toBe(DIFF_NONE);
  });

  it("replaces the mapping, deleting first, on any change", async () => {
    expect(await stack.diff(postgres, inputs({ label: "pg" }))).toEqual({
      changes: DIFF_SOME,
      replaces: ["label"],
      deleteBeforeReplace: true,
    });
    expect(await stack.diff(postgres, inputs({ udp: false }))).toEqual({
      changes: DIFF_SOME,
      replaces: ["udp"],
      deleteBeforeReplace: true,
    });
    expect(await stack.diff(postgres, inputs({ allow: [] }))).toEqual({
      changes: DIFF_SOME,
      replaces: ["allow"],
      deleteBeforeReplace: true,
    });
    expect((await stack.diff(postgres, inputs({ cubePort: 5433 }))).replaces).toEqual(["cubePort"]);
  });

  it("deletes the mapping; refresh then finds it gone", async () => {
    await stack.destroy(postgres);
    expect(await stack.refresh(postgres)).toBeUndefined();
    await stack.destroy(postgres);
  });
});
