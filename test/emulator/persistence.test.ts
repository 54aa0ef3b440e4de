import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { Api, FAST } from "../support/emulator.js";
import { waitFor } from "../support/wait.js";

const dirs: string[] = [];
const running: RunningEmulator[] = [];
afterEach(async () => {
  for (const emu of running.splice(0)) await emu.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempState(): string {
  const dir = mkdtempSync(join(tmpdir(), "cube-emu-"));
  dirs.push(dir);
  return join(dir, "state.json");
}

async function start(statePath: string, extra: { apiKey?: string; spaceId?: string } = {}): Promise<{ emu: RunningEmulator; api: Api }> {
  const emu = await startEmulator({ ...FAST, statePath, ...extra });
  running.push(emu);
  return { emu, api: new Api(emu.url, emu.apiKey, emu.spaceId) };
}

const KEY = "kro_persistence_test_key_0123456789";

describe("persistence (--state)", () => {
  it("cubes, protection, mappings, domains, webhooks, DNS and idempotency keys survive a restart", async () => {
    const statePath = tempState();
    const first = await start(statePath, { apiKey: KEY, spaceId: "spc_persist" });
    const cube = await first.api.runningCube({ terminationProtection: true });
    const tcp = await first.api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 80 }, { "idempotency-key": "tcp-80" });
    await first.api.call("POST", `/cubes/${cube.id}/domains`, { domain: "kept.example.com", port: 80 });
    await first.api.call("POST", "/webhooks", { url: "http://127.0.0.1:9/", events: ["cube.deleted"] });
    first.emu.admin.publishDns({ type: "CNAME", host: "kept.example.com", value: "dns.krova.cloud" });
    await first.emu.close();

    const second = await start(statePath, { apiKey: KEY });
    expect(second.emu.spaceId).toBe("spc_persist");
    const again = (await second.api.call("GET", `/cubes/${cube.id}`)).body.cube;
    expect(again).toMatchObject({ id: cube.id, state: "running", terminationProtection: true, publicIpv4: expect.any(String) });
    expect((await second.api.call("DELETE", `/cubes/${cube.id}`)).status).toBe(409);
    const domains = (await second.api.call("GET", `/cubes/${cube.id}/domains`)).body.domains;
    const records = await second.api.call("GET", `/cubes/${cube.id}/domains/${domains[0].id}/records`);
    expect(records.body.summary.complete).toBe(true);
    expect((await second.api.call("GET", "/webhooks")).body.webhooks).toHaveLength(1);
    const replay = await second.api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 80 }, { "idempotency-key": "tcp-80" });
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body.tcpMapping.id).toBe(tcp.body.tcpMapping.id);
  });

  it("keys are stored hashed: the state file never holds a key in clear, yet the key works after a restart", async () => {
    const statePath = tempState();
    const first = await start(statePath);
    const generated = first.emu.apiKey;
    const extra = first.emu.admin.createSpace();
    await first.emu.close();
    const text = readFileSync(statePath, "utf8");
    for (const key of [generated, extra.ownerKey, extra.readOnlyKey]) expect(text).not.toContain(key);

    const second = await start(statePath);
    expect(second.emu.spaceId).toBe(first.emu.spaceId);
    expect((await second.api.as(generated).call("GET", "/space")).status).toBe(200);
    expect((await second.api.as(extra.ownerKey, extra.spaceId).call("GET", "/cubes")).status).toBe(200);
  });

  it("a transition in flight at shutdown completes after the restart", async () => {
    const statePath = tempState();
    const first = await start(statePath);
    first.emu.admin.setClockSpeed(1);
    const cube = await first.api.createCube();
    await first.emu.close();
    const second = await start(statePath, { apiKey: undefined });
    await second.api.as(first.emu.apiKey).waitForState(cube.id, "running");
  });

  it("writes are coalesced: a change reaches the file shortly without a close; flushState writes at once", async () => {
    const statePath = tempState();
    const { emu, api } = await start(statePath, { apiKey: KEY });
    const onDisk = () => JSON.parse(readFileSync(statePath, "utf8")) as { cubes: Record<string, { name: string }> };
    const cube = await api.createCube({ name: "soon-on-disk" });
    await waitFor(() => onDisk().cubes[cube.id], { timeoutMs: 5_000, message: "the create to be written" });
    emu.admin.publishDns({ type: "TXT", host: "flushed.example.com", value: "now" });
    emu.admin.flushState();
    expect(readFileSync(statePath, "utf8")).toContain("flushed.example.com");
  });

  it("loads a state file of the earlier format (no servers, one global pool): host ports kept, new ones never collide", async () => {
    const statePath = tempState();
    const first = await start(statePath, { apiKey: KEY });
    const cube = await first.api.runningCube();
    const before = (await first.api.call("GET", `/cubes/${cube.id}/tcp-mappings`)).body.tcpMappings;
    await first.emu.close();
    const legacy = JSON.parse(readFileSync(statePath, "utf8")) as { cubes: Record<string, { server?: number }> };
    for (const record of Object.values(legacy.cubes)) delete record.server;
    writeFileSync(statePath, JSON.stringify(legacy));

    const { api } = await start(statePath, { apiKey: KEY });
    expect((await api.call("GET", `/cubes/${cube.id}/tcp-mappings`)).body.tcpMappings).toEqual(before);
    expect((await api.call("GET", `/cubes/${cube.id}`)).body.cube.serverDomain).toBe("node-1.emulator.local");
    const added = (await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 80 })).body.tcpMapping;
    expect(before.map((m: { hostPort: number }) => m.hostPort)).not.toContain(added.hostPort);
  });

  it("after SIGTERM of a child process running the emulator CLI, nothing is lost", async () => {
    const statePath = tempState();
    const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./fixtures/run-emulator-cli.ts", import.meta.url))], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: { ...process.env, EMU_API_KEY: KEY, EMU_SPACE: "spc_child", EMU_STATE: statePath },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const url = await waitFor(() => /export CUBE_API_URL=(\S+)/.exec(stdout)?.[1], {
      timeoutMs: 15_000,
      message: "the child emulator to start",
    });
    expect(stdout).not.toContain(KEY);
    const api = new Api(url, KEY, "spc_child");
    const cube = await api.createCube({ name: "survivor" });
    await api.call("PATCH", `/cubes/${cube.id}`, { terminationProtection: true });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);

    const { api: after } = await start(statePath, { apiKey: KEY });
    const kept = (await after.call("GET", `/cubes/${cube.id}`)).body.cube;
    expect(kept).toMatchObject({ name: "survivor", terminationProtection: true });
  });
});
