/**
 * Issue 20 item 12: what a terminal would not show is shown escaped (a key that starts with a
 * form feed, a zero-width space inside a key); a NUL in an SSH key is refused before anything is
 * sent; and of 5,000 files with one bad, the report names the bad one only.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { FILE_HEADER, runCli, SSH_KEY, tempProject } from "./support/cli.js";
import { test } from "./support/fixtures.js";

describe("invisible characters in keys are shown escaped", () => {
  test("a key that starts with a form feed", async () => {
    const cwd = tempProject({ "cubeform.yaml": `apiVersion: cubeform/v1\n\fcubes: []\n` });
    const run = await runCli(["validate"], { cwd });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('unknown key "\\fcubes" (did you mean "cubes"?)');
    expect(run.stderr).not.toContain("\f");
  });

  test("a zero-width space inside sshPort, and a right-to-left override", async () => {
    const cwd = tempProject({ "cubeform.yaml": `${FILE_HEADER}  - name: web\n    ssh\u200BPort: 2222\n    power\u202E: running\n` });
    const run = await runCli(["validate"], { cwd });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('cubeform.yaml:8:5: cubes[0]: unknown key "ssh\\u200BPort" (did you mean "sshPort"?)');
    expect(run.stderr).toContain('cubeform.yaml:9:5: cubes[0]: unknown key "power\\u202E" (did you mean "power"?)');
    expect(run.stderr).not.toMatch(/[\u200B\u202E]/);
  });
});

describe("a NUL byte in an SSH public key is refused, and nothing is sent", () => {
  test("inline", async ({ fx }) => {
    writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FILE_HEADER}  - name: web\n    sshPublicKey: "${SSH_KEY}\\0"\n`);
    const run = await fx.cli(["plan"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `cubeform.yaml:8:19: cubes[0].sshPublicKey: the key holds a control character (U+0000 at character ${SSH_KEY.length + 1})`,
    );
    expect(fx.emulator.admin.requests()).toEqual([]);
  });

  test("in a key file", async ({ fx }) => {
    writeFileSync(join(fx.cwd, "web.pub"), `${SSH_KEY.slice(0, 20)}\0${SSH_KEY.slice(20)}\n`);
    writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FILE_HEADER}  - name: web\n    sshPublicKeyFile: web.pub\n`);
    const run = await fx.cli(["apply", "--auto-approve"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      "cubeform.yaml:8:23: cubes[0].sshPublicKeyFile: the key holds a control character (U+0000 at character 21)",
    );
    expect(fx.emulator.admin.requests()).toEqual([]);
  });
});

test("5,000 files with one bad: the report names the bad one, not the 5,000", async () => {
  const cwd = tempProject();
  mkdirSync(join(cwd, "fleet.d"));
  for (let i = 0; i < 5000; i++) {
    const name = `cube-${String(i).padStart(4, "0")}`;
    writeFileSync(join(cwd, "fleet.d", `${name}.yaml`), `${FILE_HEADER}  - name: ${name}\n${i === 2345 ? "    colour: blue\n" : ""}`);
  }
  const run = await runCli(["validate", "-f", "fleet.d"], { cwd });
  expect(run.exitCode).toBe(1);
  const lines = run.stderr.split("\n");
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^fleet\.d\/cube-2345\.yaml:8:5: cubes\[0\]: unknown key "colour"/);
  expect(lines[1]).toBe("Error: fleet.d/cube-2345.yaml is not valid (1 problem); nothing was sent to the API");
  expect(run.stderr.length).toBeLessThan(1000);
}, 120_000);
