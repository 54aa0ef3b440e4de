/**
 * The API key never lands in what Pulumi stores or shows: not in `__provider`, not in any
 * output or read-back input, not in error messages, not on the plugin's stderr. The key is
 * also taken from CUBE_API_KEY when the stack config has none.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startPlugin, type Plugin } from "./harness.js";
import { cubeInputs, stackForFile, type Resource, type Stack } from "./support/stack.js";

let stack: Stack;
let envPlugin: Plugin | undefined;
let vault: Resource | undefined;
stackForFile((started) => (stack = started));
afterAll(async () => {
  await envPlugin?.close();
});

describe("the API key", () => {
  it("is in no __provider text, output, read-back input, error or stderr line", async () => {
    const key = stack.emulator.apiKey;
    for (const text of Object.values(stack.providers)) expect(text.includes(key), "API key in __provider").toBe(false);

    const cube = await stack.create("Cube", "vault", cubeInputs("vault", { terminationProtection: true }));
    vault = cube;
    const domain = await stack.create("Domain", "vault", {
      cubeId: cube.id,
      hostname: "vault.example.com",
      port: 8200,
      basicAuthUser: "u",
      basicAuthPassword: "pw-123456",
    });
    const port = await stack.create("TcpMapping", "vault", { cubeId: cube.id, cubePort: 8201 });
    const reads = await Promise.all([cube, domain, port].map((r) => stack.plugin.refresh(r.urn, r.id, r.outs, r.inputs)));
    const failures = await Promise.allSettled([
      stack.create("Cube", "bad", cubeInputs("bad", { image: "no-such-image" })),
      stack.destroy(cube),
    ]);
    const messages = failures.map((f) => (f.status === "rejected" ? String((f.reason as Error).message) : "fulfilled"));
    expect(messages[0]).toMatch(/image/i);
    expect(messages[1]).toMatch(/terminationProtection/);

    const stored = JSON.stringify({ cube, domain, port, reads, messages });
    expect(stored.includes(key), "API key found in stored state or messages").toBe(false);
    // The password is an input (kept secret by Pulumi), never an output.
    for (const r of [cube, domain, port, ...reads]) expect(JSON.stringify(r.outs).includes("pw-123456"), "password in outputs").toBe(false);
    expect(stack.plugin.stderr().includes(key), "API key on the plugin's stderr").toBe(false);
  });

  it("comes from CUBE_API_KEY / CUBE_API_URL when the stack config has none", async () => {
    envPlugin = await startPlugin({ env: { CUBE_API_KEY: stack.emulator.apiKey, CUBE_API_URL: stack.emulator.url } });
    await envPlugin.configure({});
    const read = await envPlugin.refresh(vault!.urn, vault!.id, vault!.outs, vault!.inputs);
    expect(read.id).toBe(vault!.id);
    expect(read.outs.name).toBe("vault");
    expect(envPlugin.stderr()).not.toContain(stack.emulator.apiKey);
  });
});
