/**
 * `watch --listen` checks a delivery's signature against secrets it already holds: an unsigned
 * POST never loads the fleet file (issue 23 item 10: with a 5,000-cube file each one cost a
 * parse, ~100 ms of CPU). Loads are counted at the loader, in process.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, expect, test, vi } from "vitest";
import { freePort } from "../support/ports.js";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { waitFor } from "../support/wait.js";
import { DEFAULTS_HEADER } from "./support/cli.js";

const loads = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../desired/sources.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../desired/sources.js")>();
  return {
    ...original,
    loadDesiredFiles: (...args: Parameters<typeof original.loadDesiredFiles>) => (loads.count++, original.loadDesiredFiles(...args)),
  };
});
// Workers run file after file on one module graph: load the CLI afresh, so it takes the counted loader.
vi.resetModules();
const { main } = await import("../../reconciler/main.js");

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

function fleetOf(cubes: number, port: number): string {
  const names = Array.from({ length: cubes }, (_, i) => `  - name: cube-${i}\n`).join("");
  return `${DEFAULTS_HEADER}webhooks:
  - url: http://127.0.0.1:${port}/
    events: [cube.deleted]
    secretFile: watch.secret
cubes:
${names}`;
}

let emu: RunningEmulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("40 unsigned POSTs against a 5,000-cube file load the file no time at all", { timeout: 120_000 }, async () => {
  emu = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 1000, windowMs: 60_000 } });
  dir = mkdtempSync(join(tmpdir(), "cubeform-listen-cost-"));
  const port = await freePort();
  writeFileSync(join(dir, "cubeform.yaml"), fleetOf(5000, port));
  writeFileSync(join(dir, "watch.secret"), "whsec_known_to_the_listener\n", { mode: 0o600 });
  const stdout = new Capture();
  const stderr = new Capture();
  const stop = new AbortController();
  const env = { CUBE_API_URL: emu.url, CUBE_API_KEY: emu.apiKey, XDG_STATE_HOME: dir, NO_COLOR: "1" };
  const watch = main(["watch", "--interval", "1h", "--listen", `127.0.0.1:${port}`, "--rate-limit", "1000/60"], {
    stdout,
    stderr,
    env,
    cwd: dir,
    signal: stop.signal,
  });
  try {
    await waitFor(() => stdout.text.includes("round 1"), { timeoutMs: 90_000, message: `the first round (stderr: ${stderr.text})` });
    const loadsBefore = loads.count;
    expect(loadsBefore, "the watch loads the file through the counted loader").toBeGreaterThan(0);
    const started = performance.now();
    for (let i = 0; i < 40; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/`, {
        method: "POST",
        headers: { "x-krova-event": "cube.deleted" },
        body: "{}",
      });
      expect(response.status).toBe(401);
    }
    const ms = performance.now() - started;
    console.log(`40 unsigned POSTs against a 5,000-cube file: ${loads.count - loadsBefore} loads, ${Math.round(ms)} ms`);
    expect(loads.count - loadsBefore).toBe(0);
    expect(stderr.text).toContain("refused a delivery: malformed_header");
  } finally {
    stop.abort();
    expect(await watch).toBe(0);
  }
});
