import { describe, expect, test } from "vitest";
import { runCli, SSH_KEY, tempProject } from "./support/cli.js";

const header = `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  sshPublicKey: ${SSH_KEY}
cubes:
`;

async function validate(yaml: string, env: Record<string, string> = {}) {
  const cwd = tempProject({ "cubeform.yaml": yaml });
  return runCli(["validate"], { cwd, env });
}

describe("validate reports each problem at file:line:col with exit 1", () => {
  test("bad YAML syntax", async () => {
    const r = await validate(`${header}  - name: web\n    power: [running\n`);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^cubeform\.yaml:\d+:\d+: /m);
    expect(r.stdout).toBe("");
  });

  test("wrong type", async () => {
    const r = await validate(`${header}  - name: web\n    sshPort: twenty-two\n`);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("cubeform.yaml:8:14: cubes[0].sshPort: Invalid input: expected number, received string");
  });

  test("unknown key", async () => {
    const r = await validate(`${header}  - name: web\n    colour: blue\n`);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('cubeform.yaml:8:5: cubes[0]: unknown key "colour"');
  });

  test("every problem at once", async () => {
    const r = await validate(`${header}  - name: web\n    colour: blue\n  - name: db\n    power: asleep\n`);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('cubeform.yaml:8:5: cubes[0]: unknown key "colour"');
    expect(r.stderr).toMatch(/cubeform\.yaml:10:12: cubes\[1\]\.power: /);
    expect(r.stderr).toContain("(2 problems)");
  });

  test("missing env reference", async () => {
    const r = await validate(`${header}  - name: web\n    userData: "token=\${env:DEPLOY_TOKEN}"\n`);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("cubeform.yaml:8:15: environment variable DEPLOY_TOKEN is not set");
  });

  test("literal basicAuthPassword", async () => {
    const yaml = `${header}  - name: web\n    domains:\n      - hostname: app.example.com\n        port: 8080\n        basicAuthUser: admin\n        basicAuthPassword: hunter2hunter2\n`;
    const r = await validate(yaml);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("cubeform.yaml:12:28: basicAuthPassword must be an environment reference like ${env:BASIC_AUTH_PASSWORD}");
    expect(r.stderr).not.toContain("hunter2hunter2");
  });

  test("basicAuthPassword referring to an unset variable", async () => {
    const yaml = `${header}  - name: web\n    domains:\n      - hostname: app.example.com\n        port: 8080\n        basicAuthPassword: \${env:WEB_PASSWORD}\n`;
    const r = await validate(yaml);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("cubeform.yaml:11:28: environment variable WEB_PASSWORD is not set");
  });

  test("duplicate cube name", async () => {
    const r = await validate(`${header}  - name: web\n  - name: db\n  - name: web\n`);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^cubeform\.yaml:9:11: cubes\[2\]\.name: duplicate cube name "web"/m);
  });

  test("duplicate domain", async () => {
    const domain = "    domains:\n      - { hostname: app.example.com, port: 80 }\n";
    const r = await validate(`${header}  - name: web\n${domain}  - name: db\n${domain}`);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^cubeform\.yaml:12:21: cubes\[1\]\.domains\[0\]\.hostname: .*app\.example\.com/m);
  });

  test("missing key file", async () => {
    const r = await validate(`${header}  - name: web\n    sshPublicKey: null\n`.replace("    sshPublicKey: null\n", "    sshPublicKeyFile: keys/web.pub\n"));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^cubeform\.yaml:8:23: cubes\[0\]\.sshPublicKeyFile: cannot read keys\/web\.pub: no such file/m);
  });

  test("a missing file is a one-line error", async () => {
    const cwd = tempProject();
    const r = await runCli(["validate", "-f", "nope.yaml"], { cwd });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("Error: cannot read nope.yaml: no such file (use -f/--file to name the desired-state file)\n");
  });
});
