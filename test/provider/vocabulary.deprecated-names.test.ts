/**
 * One vocabulary: the provider takes the desired-state file's names (`hostname`, `udp`, `allow`).
 * Programs and stacks of earlier releases (`domain`, `udpEnabled`, `whitelistedIps`) keep working:
 * check() renames the old inputs, the program warns, and diff sees no change against state
 * written under the old names (no spurious replacement).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DIFF_NONE, REPO_ROOT } from "./harness.js";
import { stackWithCubeForFile, type Resource, type Stack } from "./support/stack.js";

const run = promisify(execFile);

let stack: Stack;
let cube: Resource;
stackWithCubeForFile("web", (file) => ({ stack, cube } = file));

/** State as an earlier release wrote it: the same values under the old names. */
function oldState(resource: Resource, renames: Record<string, string>): Resource {
  const rename = (props: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(props).map(([key, value]) => [Object.entries(renames).find(([, to]) => to === key)?.[0] ?? key, value]),
    );
  return { ...resource, outs: rename(resource.outs), inputs: rename(resource.inputs) };
}

describe("deprecated input names", () => {
  it("check() accepts the old names and hands the engine the file's names", async () => {
    const domain = await stack.plugin.check(
      stack.urn("Domain", "app"),
      undefined,
      stack.withProvider("Domain", { cubeId: cube.id, domain: "app.example.com", port: 8080 }),
    );
    expect(domain.failures).toEqual([]);
    expect(domain.inputs).toMatchObject({ hostname: "app.example.com", port: 8080 });
    expect(domain.inputs).not.toHaveProperty("domain");
    const port = await stack.plugin.check(
      stack.urn("TcpMapping", "pg"),
      undefined,
      stack.withProvider("TcpMapping", { cubeId: cube.id, cubePort: 5432, udpEnabled: false, whitelistedIps: ["10.0.0.0/8"] }),
    );
    expect(port.failures).toEqual([]);
    expect(port.inputs).toMatchObject({ udp: false, allow: ["10.0.0.0/8"] });
    expect(port.inputs).not.toHaveProperty("udpEnabled");
    expect(port.inputs).not.toHaveProperty("whitelistedIps");
  });

  it("a bad value under an old name is reported under the file's name", async () => {
    const port = await stack.plugin.check(
      stack.urn("TcpMapping", "pg"),
      undefined,
      stack.withProvider("TcpMapping", { cubeId: cube.id, cubePort: 5432, whitelistedIps: ["nope"] }),
    );
    expect(port.failures.map((f) => f.property)).toEqual(["allow[0]"]);
  });

  it("state written with the old names diffs as unchanged against the new names (no replacement)", async () => {
    const app = await stack.create("Domain", "app", { cubeId: cube.id, hostname: "app.example.com", port: 8080 });
    const pg = await stack.create("TcpMapping", "pg", { cubeId: cube.id, cubePort: 5432, udp: false, allow: ["10.0.0.0/8"] });
    expect(app.outs).toMatchObject({ hostname: "app.example.com" });
    expect(pg.outs).toMatchObject({ udp: false, allow: ["10.0.0.0/8"] });

    const oldApp = oldState(app, { domain: "hostname" });
    const oldPg = oldState(pg, { udpEnabled: "udp", whitelistedIps: "allow" });
    expect(oldApp.outs).toHaveProperty("domain", "app.example.com");
    expect(oldPg.outs).toHaveProperty("whitelistedIps", ["10.0.0.0/8"]);
    // The user renamed the inputs in the program, or kept the old ones: both are no change.
    expect((await stack.diff(oldApp, { cubeId: cube.id, hostname: "app.example.com", port: 8080 })).changes).toBe(DIFF_NONE);
    expect((await stack.diff(oldApp, { cubeId: cube.id, domain: "app.example.com", port: 8080 })).changes).toBe(DIFF_NONE);
    expect((await stack.diff(oldPg, { cubeId: cube.id, cubePort: 5432, udp: false, allow: ["10.0.0.0/8"] })).changes).toBe(DIFF_NONE);
    expect((await stack.diff(oldPg, { cubeId: cube.id, cubePort: 5432, udpEnabled: false, whitelistedIps: ["10.0.0.0/8"] })).changes).toBe(
      DIFF_NONE,
    );
    // A real difference is still one, named by the file's name.
    expect((await stack.diff(oldPg, { cubeId: cube.id, cubePort: 5432, udp: true, allow: ["10.0.0.0/8"] })).replaces).toEqual(["udp"]);
    // Old state deletes cleanly.
    await stack.destroy(oldPg);
    await stack.destroy(oldApp);
    expect(await stack.refresh(pg)).toBeUndefined();
    expect(await stack.refresh(app)).toBeUndefined();
  });

  it("a program still using the old names warns, naming each rename", async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "test/provider/support/mocks-runner.ts", "test/provider/fixtures/old-names.program.ts"],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, PULUMI_NODEJS_PROJECT: "old", PULUMI_CONFIG: "{}" },
        timeout: 30_000,
      },
    );
    expect(stderr).toMatch(/Domain: deprecated input name: `domain` is now `hostname`/);
    expect(stderr).toMatch(/TcpMapping: deprecated input names: `udpEnabled` is now `udp`, `whitelistedIps` is now `allow`/);
    const registered = (JSON.parse(stdout) as { registered: { name: string }[] }).registered.map((r) => r.name).sort();
    expect(registered).toEqual(["app", "pg", "web"]);
  });
});
