import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
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

test("--emulator keeps its state beside the file: a run from the parent folder finds it there, says where, and leaves nothing in the parent (issue 22 item 8)", async () => {
  const parent = tempProject();
  mkdirSync(join(parent, "fleet"));
  copyFileSync(FLEET_YAML, join(parent, "fleet", "cubeform.yaml"));
  const applied = await runCli(["apply", "--emulator", "--auto-approve", "--poll-interval", "20"], { cwd: join(parent, "fleet") });
  expect(applied.exitCode).toBe(0);
  expect(applied.stderr, "in the file's folder: nothing to say").toBe("");
  const planned = await runCli(["plan", "--emulator", "-f", "fleet/cubeform.yaml"], { cwd: parent });
  expect(planned.exitCode).toBe(0);
  expect(planned.stdout).toContain("No changes");
  expect(planned.stderr).toBe("emulator: state in fleet/.cubeform/emulator-state.json (beside the file)\n");
  expect(existsSync(join(parent, ".cubeform"))).toBe(false);
  // A directory of files: the state is in it.
  const byFolder = await runCli(["plan", "--emulator", "-f", "fleet"], { cwd: parent });
  expect(byFolder.stdout).toContain("No changes");
});
