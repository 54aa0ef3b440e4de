/**
 * A create whose answer is lost after the API made the cube, then the plugin's exit (the journal
 * of Idempotency-Keys dies with it), then another `pulumi up`: the new plugin finds the live cube
 * of that name, creates no second one, and says how to take it over (adoptId, with its id).
 * Through the real plugin, with the emulator's drop-after-commit fault (issue 20 #10).
 */
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "../support/wait.js";
import type { Plugin } from "./harness.js";
import { cubeInputs, stackAndClientForFile, type DirectClient, type Stack } from "./support/stack.js";

let stack: Stack;
let next: Plugin | undefined;
let api: DirectClient;
const FAST = { emulatorRateLimit: { limit: 1000, windowMs: 60_000 }, providerRateLimit: "1000/60" };
stackAndClientForFile((file) => ({ stack, api } = file), FAST);
afterAll(async () => {
  await next?.close();
});

const namedWeb = async () => (await api.listCubes()).filter((cube) => cube.name === "web" && cube.state !== "deleted");

describe("a create whose answer was lost, then a new plugin", () => {
  it("creates no second cube: it fails with the adoptId advice naming the live cube, and adopting it works", {
    timeout: 60_000,
  }, async () => {
    stack.emulator.admin.injectFault({ kind: "drop-after-commit", method: "POST", path: "/cubes$" });
    const lost = stack.create("Cube", "web", cubeInputs("web"));
    lost.catch(() => {});
    const [made] = await waitFor(async () => ((await namedWeb()).length > 0 ? namedWeb() : undefined), {
      timeoutMs: 20_000,
      message: "the API to make the cube",
    });
    stack.plugin.child.kill("SIGKILL");
    await expect(lost).rejects.toThrow();
    stack.emulator.admin.clearFaults();

    next = await stack.anotherPlugin({ "cubeform:rateLimit": "1000/60", "cubeform:pollInterval": "0.02", "cubeform:waitTimeout": "20" });
    const urn = stack.urn("Cube", "web");
    const checked = await next.check(urn, undefined, stack.withProvider("Cube", cubeInputs("web")));
    await expect(next.create(urn, checked.inputs)).rejects.toThrow(
      new RegExp(`live cube of that name .*${made!.id}.*set adoptId: "${made!.id}"`),
    );
    expect((await namedWeb()).map((cube) => cube.id)).toEqual([made!.id]);

    const adopting = await next.check(urn, undefined, stack.withProvider("Cube", cubeInputs("web", { adoptId: made!.id })));
    const adopted = await next.create(urn, adopting.inputs);
    expect(adopted.id).toBe(made!.id);
    expect((await namedWeb()).length).toBe(1);
  });
});
