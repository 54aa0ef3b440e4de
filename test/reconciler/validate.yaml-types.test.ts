/**
 * Issue 31 item 16: files the loader accepted or refused wrongly. A NUL byte inside a comment (YAML allows none anywhere) and
 * YAML 1.1 types such as `defaults: !!omap` (read as a Map: an empty object to the checks, so its defaults vanished) are
 * located errors, and nothing is sent; `sshPort: !!float 22` is YAML 1.2's float 22, a whole number: accepted as 22. The light
 * (cube by cube) and the positioned (whole document) parses agree: each case is also loaded with a second, unrelated problem,
 * which sends the file through the positioned parse.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { parseSplit } from "../../desired/yaml-split.js";
import { FILE_HEADER, SSH_KEY } from "./support/cli.js";
import { FAST, test } from "./support/fixtures.js";

/** The same file with one unknown key more: only the positioned parse reports (and locates) problems. */
const withTypo = (text: string) => `${text}  - name: other\n    powr: running\n`;
const TYPO = /cubes\[\d\]: unknown key "powr" \(did you mean "power"\?\)/;

describe("refused, located, nothing sent", () => {
  test("a NUL byte inside a comment", async ({ fx }) => {
    const text = `${FILE_HEADER}  - name: web # built \0 by hand\n  - name: db\n`;
    writeFileSync(join(fx.cwd, "cubeform.yaml"), text);
    const run = await fx.cli(["apply", "--auto-approve", ...FAST]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("cubeform.yaml:7:23: a NUL byte: YAML allows none anywhere in a file, comments included");
    expect(fx.emulator.admin.requests()).toEqual([]);
    expect(parseSplit(text)).toBeUndefined();
  });

  test.for([
    [
      "defaults: !!omap",
      `apiVersion: cubeform/v1\ndefaults: !!omap\n  - image: ubuntu-24.04\n  - sshPublicKey: ${SSH_KEY}\ncubes:\n  - name: web\n    image: ubuntu-24.04\n    resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n    sshPublicKey: ${SSH_KEY}\n`,
      "2:11",
      "!!omap",
    ],
    ["a cube's ports: !!set", `${FILE_HEADER}  - name: web\n    ports: !!set\n      ? 80\n`, "8:12", "!!set"],
    ["userData: !!binary", `${FILE_HEADER}  - name: web\n    userData: !!binary aGVsbG8=\n`, "8:15", "!!binary"],
  ] as const)("%s", async ([, text, at, tag], { fx }) => {
    writeFileSync(join(fx.cwd, "cubeform.yaml"), text);
    const run = await fx.cli(["apply", "--auto-approve", ...FAST]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`cubeform.yaml:${at}: the tag ${tag} is not one cubeform reads (YAML 1.2's core types only`);
    expect(fx.emulator.admin.requests()).toEqual([]);
    writeFileSync(join(fx.cwd, "typo.yaml"), withTypo(text));
    const both = await fx.cli(["validate", "-f", "typo.yaml"]);
    expect(both.stderr).toContain(`typo.yaml:${at}: the tag ${tag} is not one cubeform reads`);
  });

  test("!!float on what is no number says so where it is", async ({ fx }) => {
    writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FILE_HEADER}  - name: web\n    sshPort: !!float twenty\n`);
    const run = await fx.cli(["validate"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/cubeform\.yaml:8:\d+: !!float "twenty" is not a number/);
  });
});

describe("sshPort: !!float 22 is the number 22", () => {
  const text = `${FILE_HEADER}  - name: web\n    sshPort: !!float 22\n  - name: db\n    sshPort: !!float 2222.0\n`;

  test("accepted by validate and the light parse; applied as 22 and 2222", async ({ fx }) => {
    writeFileSync(join(fx.cwd, "cubeform.yaml"), text);
    const validated = await fx.cli(["validate"]);
    expect(validated.exitCode, validated.stderr).toBe(0);
    expect(parseSplit(text)?.cubes).toMatchObject([{ sshPort: 22 }, { sshPort: 2222 }]);
    const plan = await fx.cli(["plan", "--format", "json", ...FAST]);
    expect(plan.exitCode, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('"sshPort":2222');
  });

  test("the positioned parse agrees: with another problem in the file, that problem alone is reported", async ({ fx }) => {
    writeFileSync(join(fx.cwd, "typo.yaml"), withTypo(text));
    const run = await fx.cli(["validate", "-f", "typo.yaml"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(TYPO);
    expect(run.stderr).toContain("(1 problem)");
  });

  test("!!float 22.5 is a number that is no port: refused as a number, not as a string", async ({ fx }) => {
    writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FILE_HEADER}  - name: web\n    sshPort: !!float 22.5\n`);
    const run = await fx.cli(["validate"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("cubeform.yaml:8:22: cubes[0].sshPort: Invalid input: expected int, received number");
    expect(run.stderr).not.toContain("received string");
  });
});
