import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { FILE_HEADER } from "./support/cli.js";
import { test, type CliFixture } from "./support/fixtures.js";

/** validate and plan both refuse the file, at the same positions, and send nothing. */
async function refuse(fx: CliFixture, yaml: string) {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), yaml);
  const validated = await fx.cli(["validate"]);
  const planned = await fx.cli(["plan"]);
  expect(validated.exitCode).toBe(1);
  expect(planned.exitCode).toBe(1);
  expect(planned.stderr).toBe(validated.stderr);
  expect(validated.stdout).toBe("");
  expect(validated.stderr).toMatch(/nothing was sent to the API\n$/);
  expect(fx.emulator.admin.requests()).toEqual([]);
  return validated.stderr;
}

describe("validate and plan report each problem at file:line:col, exit 1, and send no request", () => {
  test("bad YAML syntax", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n    power: [running\n`);
    expect(stderr).toMatch(/^cubeform\.yaml:\d+:\d+: /m);
  });

  test("wrong type", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n    sshPort: twenty-two\n`);
    expect(stderr).toContain("cubeform.yaml:8:14: cubes[0].sshPort: Invalid input: expected number, received string");
  });

  test("unknown key", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n    colour: blue\n`);
    expect(stderr).toContain('cubeform.yaml:8:5: cubes[0]: unknown key "colour"');
  });

  test("every problem at once", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n    colour: blue\n  - name: db\n    power: asleep\n`);
    expect(stderr).toContain('cubeform.yaml:8:5: cubes[0]: unknown key "colour"');
    expect(stderr).toMatch(/cubeform\.yaml:10:12: cubes\[1\]\.power: /);
    expect(stderr).toContain("(2 problems)");
  });

  test("a duplicate cube name and a type error in the same file: both reported", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n    sshPort: twenty-two\n  - name: web\n`);
    expect(stderr).toContain("cubeform.yaml:8:14: cubes[0].sshPort: Invalid input: expected number, received string");
    expect(stderr).toMatch(/^cubeform\.yaml:9:11: cubes\[1\]\.name: duplicate cube name "web"/m);
    expect(stderr).toContain("(2 problems)");
  });

  test("duplicate cube name", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n  - name: db\n  - name: web\n`);
    expect(stderr).toMatch(/^cubeform\.yaml:9:11: cubes\[2\]\.name: duplicate cube name "web"/m);
  });

  test("duplicate domain", async ({ fx }) => {
    const domain = "    domains:\n      - { hostname: app.example.com, port: 80 }\n";
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n${domain}  - name: db\n${domain}`);
    expect(stderr).toMatch(/^cubeform\.yaml:12:21: cubes\[1\]\.domains\[0\]\.hostname: .*app\.example\.com/m);
  });

  test("missing env reference", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n    userData: "token=\${env:DEPLOY_TOKEN}"\n`);
    expect(stderr).toContain("cubeform.yaml:8:15: environment variable DEPLOY_TOKEN is not set");
  });

  test("literal basicAuthPassword", async ({ fx }) => {
    const yaml = `${FILE_HEADER}  - name: web\n    domains:\n      - hostname: app.example.com\n        port: 8080\n        basicAuthUser: admin\n        basicAuthPassword: hunter2hunter2\n`;
    const stderr = await refuse(fx, yaml);
    expect(stderr).toContain("cubeform.yaml:12:28: basicAuthPassword must be an environment reference like ${env:BASIC_AUTH_PASSWORD}\n");
    expect(stderr).not.toContain("hunter2hunter2");
  });

  test("basicAuthPassword referring to an unset variable", async ({ fx }) => {
    const yaml = `${FILE_HEADER}  - name: web\n    domains:\n      - hostname: app.example.com\n        port: 8080\n        basicAuthPassword: \${env:WEB_PASSWORD}\n`;
    const stderr = await refuse(fx, yaml);
    expect(stderr).toContain("cubeform.yaml:11:28: environment variable WEB_PASSWORD is not set");
  });

  test("missing key file", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n    sshPublicKeyFile: keys/web.pub\n`);
    expect(stderr).toMatch(/^cubeform\.yaml:8:23: cubes\[0\]\.sshPublicKeyFile: cannot read keys\/web\.pub: no such file/m);
  });

  test("a missing desired-state file is one line", async ({ fx }) => {
    const r = await fx.cli(["plan", "-f", "nope.yaml"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("Error: cannot read nope.yaml: no such file (use -f/--file to name the desired-state file)\n");
    expect(fx.emulator.admin.requests()).toEqual([]);
  });
});

test("validate accepts the example fleet", async ({ fx }) => {
  const r = await fx.cli(["validate"]);
  expect(r).toEqual({ exitCode: 0, stdout: "ok: 3 cubes (cubeform.yaml)\n", stderr: "" });
});

test("validate --format github turns problems into error annotations", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FILE_HEADER}  - name: web\n    colour: blue\n`);
  const r = await fx.cli(["validate", "--format", "github"]);
  expect(r.exitCode).toBe(1);
  expect(r.stdout).toBe('::error file=cubeform.yaml,line=8,col=5::cubes[0]: unknown key "colour"\n');
});
