/** What only a real process shows: the installed bin's exit codes and signal handling. */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { testCacheHome } from "../support/cache-home.js";
import { FLEET_YAML } from "./support/fixtures.js";

const BIN = fileURLToPath(new URL("../../bin/cubeform.js", import.meta.url));

test("the bin exits with main's code", () => {
  const ok = spawnSync(process.execPath, [BIN, "validate", "-f", FLEET_YAML], { encoding: "utf8", env: testCacheHome() });
  expect(ok.status).toBe(0);
  expect(ok.stdout).toBe(`ok: 3 cubes (${FLEET_YAML})\n`);
  const bad = spawnSync(process.execPath, [BIN, "plan", "-f", FLEET_YAML], { encoding: "utf8", env: testCacheHome() });
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/^Error: No API key: set CUBE_API_KEY.*--emulator/);
});

test("`-f -` reads the file from the bin's standard input, with or without secrets in the environment", () => {
  const text = readFileSync(FLEET_YAML, "utf8");
  for (const env of [{}, { CUBE_API_KEY: "kro_bin_stdin_secret_0123456789" }]) {
    const run = spawnSync(process.execPath, [BIN, "validate", "-f", "-"], {
      encoding: "utf8",
      input: text,
      env: { ...testCacheHome(), ...env },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe("ok: 3 cubes (<stdin>)\n");
  }
});

test("`cubeform emulator` serves until SIGTERM, then closes and exits 0", async () => {
  const child = spawn(process.execPath, [BIN, "emulator", "--port", "0", "--api-key", "kro_bin_test", "--space", "space-bin"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", () => reject(new Error(`exited early: ${out}`)));
  });
  const res = await fetch(`${url}/space`, { headers: { "X-API-Key": "kro_bin_test" } });
  expect(res.status).toBe(200);
  expect(out).not.toContain("kro_bin_test");
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
});
