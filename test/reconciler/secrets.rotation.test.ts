/**
 * Rotating a basic-auth password in the environment (issue 10 item 8): the API never returns
 * it, so apply keeps a salted digest of what it sent under .cubeform/ and a later plan sees the
 * change. Without that memory (a fresh checkout) no update is planned.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { addBasicAuthFromEnv } from "./support/edit.js";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";

const FIRST = "first-pa55-correct-horse";
const SECOND = "second-pa55-battery-staple";

test("a rotated password is planned as an update and applied; the memory holds a salted digest, never the password", async ({ fx }) => {
  addBasicAuthFromEnv(fx.cwd);
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY], { env: { WWW_PASSWORD: FIRST } })).exitCode).toBe(0);
  expect((await fx.cli(["plan", ...FAST], { env: { WWW_PASSWORD: FIRST } })).exitCode).toBe(0);

  const rotated = await fx.cli(["plan", ...FAST], { env: { WWW_PASSWORD: SECOND } });
  expect(rotated.exitCode, rotated.stdout + rotated.stderr).toBe(2);
  expect(rotated.stdout).toContain("basicAuthPassword");
  expect(rotated.stdout).not.toContain(SECOND);

  fx.emulator.admin.clearRequests();
  const applied = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY], { env: { WWW_PASSWORD: SECOND } });
  expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
  expect(fx.emulator.admin.requests().filter((r) => r.method === "PATCH" && r.path.includes("/domains/"))).toHaveLength(1);
  expect((await fx.cli(["plan", ...FAST], { env: { WWW_PASSWORD: SECOND } })).exitCode).toBe(0);

  const memory = readFileSync(join(fx.cwd, ".cubeform", "secrets.json"), "utf8");
  expect(memory).toContain("WWW_PASSWORD");
  expect(memory).not.toContain(FIRST);
  expect(memory).not.toContain(SECOND);

  // A fresh checkout has no memory: the rotation cannot be seen (the README says so).
  rmSync(join(fx.cwd, ".cubeform", "secrets.json"));
  expect((await fx.cli(["plan", ...FAST], { env: { WWW_PASSWORD: FIRST } })).exitCode).toBe(0);
});
