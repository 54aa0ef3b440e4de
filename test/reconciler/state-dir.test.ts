/**
 * Issue 31 item 2: where cubeform keeps the create journal, secret digests and the --emulator's
 * state: `--state-dir DIR`, else $CUBEFORM_STATE_DIR, else .cubeform/ beside the file. A
 * controller whose working directory is read-only points it at a volume.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { FILE_HEADER, runCli, tempProject } from "./support/cli.js";

const FLEET = `${FILE_HEADER}  - name: web
`;

const APPLY = ["apply", "--auto-approve", "--emulator", "--rate-limit", "1000/60", "--poll-interval", "20"];

test("--state-dir, else CUBEFORM_STATE_DIR, holds the journal and the emulator's state; .cubeform/ is not made", async () => {
  const cwd = tempProject({ "cubeform.yaml": FLEET });
  const byFlag = join(tempProject(), "by-flag");
  const flag = await runCli([...APPLY, "--state-dir", byFlag], { cwd, env: { CUBEFORM_STATE_DIR: join(cwd, "ignored") } });
  expect(flag.exitCode, flag.stderr).toBe(0);
  expect(flag.stderr).toMatch(/emulator: state in \S*by-flag\/emulator-state\.json\n/);
  expect(existsSync(join(byFlag, "journal.json"))).toBe(true);
  expect(existsSync(join(byFlag, "emulator-state.json"))).toBe(true);

  const byVariable = join(tempProject(), "by-variable");
  const variable = await runCli(APPLY, { cwd, env: { CUBEFORM_STATE_DIR: byVariable } });
  expect(variable.exitCode, variable.stderr).toBe(0);
  expect(existsSync(join(byVariable, "journal.json"))).toBe(true);
  expect(existsSync(join(cwd, ".cubeform"))).toBe(false);
  expect(existsSync(join(cwd, "ignored"))).toBe(false);
});
