/**
 * A key the API refuses (401) says where it came from: the variable, or the krova config's
 * context and file (issue 22 item 9). The key itself is never printed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FAST, test } from "./support/fixtures.js";

const WRONG = "kro_wrong_key_for_the_test";

test("a 401 names the variable the key came from (issue 22 item 9)", async ({ fx }) => {
  for (const [name, args] of [
    ["CUBE_API_KEY", ["plan"]],
    ["KROVA_API_KEY", ["cube", "list"]],
  ] as const) {
    const run = await fx.cli([...args, ...FAST], { env: { CUBE_API_KEY: "", [name]: WRONG } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^Error: Cube API 401 .*; the key came from the variable ${name}\\n$`));
    expect(run.stderr).not.toContain(WRONG);
  }
});

test("a 401 names the krova config context and file the key came from (issue 22 item 9)", async ({ fx }) => {
  const config = join(fx.cwd, "config");
  mkdirSync(join(config, "krova"), { recursive: true, mode: 0o700 });
  const file = join(config, "krova", "config.json");
  const contexts = [{ name: "prod", apiKey: WRONG, spaceId: fx.emulator.spaceId, baseUrl: fx.emulator.url }];
  writeFileSync(file, JSON.stringify({ currentContext: "prod", contexts }), { mode: 0o600 });
  const run = await fx.cli(["plan", ...FAST], { env: { CUBE_API_KEY: "", CUBE_API_URL: "", XDG_CONFIG_HOME: config } });
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toMatch(/^Error: Cube API 401 .*; the key came from the context "prod" of (\S+)\n$/);
  expect(run.stderr).toContain(`of ${file}\n`);
  expect(run.stderr).not.toContain(WRONG);
});
