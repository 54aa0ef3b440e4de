import { existsSync } from "node:fs";
import { join } from "node:path";
import { copyFileSync } from "node:fs";
import { expect, test } from "vitest";
import { runCli, tempProject } from "./support/cli.js";
import { FLEET_YAML } from "./support/fixtures.js";

test("--emulator runs against the embedded emulator, whose state persists under .cubeform/", async () => {
  const cwd = tempProject();
  copyFileSync(FLEET_YAML, join(cwd, "cubeform.yaml"));
  const applied = await runCli(["apply", "--emulator", "--auto-approve", "--poll-interval", "20"], { cwd });
  expect(applied.stderr).toBe("");
  expect(applied.exitCode).toBe(0);
  expect(existsSync(join(cwd, ".cubeform", "emulator-state.json"))).toBe(true);
  // A second process-less run starts the emulator again from the saved state.
  const planned = await runCli(["plan", "--emulator"], { cwd });
  expect(planned.exitCode).toBe(0);
  expect(planned.stdout).toContain("No changes");
});
