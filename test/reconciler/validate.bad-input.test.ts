/**
 * Issue 11, items 1–5: every bad input is a user error with file:line:col, a hint, exit 1 and
 * no request sent — impossible addresses, YAML the parser cannot turn into a document, what
 * only the catalog knows, typos (keys and --target), and every way to name the file.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect } from "vitest";
import { main } from "../../reconciler/main.js";
import { FILE_HEADER, SSH_KEY } from "./support/cli.js";
import { test, type CliFixture } from "./support/fixtures.js";

/** validate and plan refuse the file with the same report, exit 1, and send nothing. */
async function refuse(fx: CliFixture, yaml: string, env: Record<string, string> = {}): Promise<string> {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), yaml);
  const validated = await fx.cli(["validate"], { env });
  const planned = await fx.cli(["plan"], { env });
  expect(validated.exitCode).toBe(1);
  expect(planned.exitCode).toBe(1);
  expect(planned.stderr).toBe(validated.stderr);
  expect(validated.stderr).not.toContain("unexpected failure");
  expect(validated.stderr).toMatch(/nothing was sent to the API\n$/);
  expect(fx.emulator.admin.requests()).toEqual([]);
  return validated.stderr;
}

const domainWith = (line: string) =>
  `${FILE_HEADER}  - name: web\n    domains:\n      - hostname: app.example.com\n        port: 8080\n        ${line}\n`;

describe("1. impossible IP addresses and CIDRs are refused in the file", () => {
  test.for([
    ["1.2.3.4/33", /"1\.2\.3\.4\/33": an IPv4 prefix length is a whole number from 0 to 32/],
    ["256.1.1.1", /"256\.1\.1\.1" is not an IP address or CIDR \(an IPv4 address is four numbers from 0 to 255/],
    ["2001:db8::/129", /"2001:db8::\/129": an IPv6 prefix length is a whole number from 0 to 128/],
    ["300.1.1.1/40", /"300\.1\.1\.1\/40" is not an IP address/],
  ] as const)("%s in a domain's ipAllowList, ipDenyList and a port's allow-list", async ([address, message], { fx }) => {
    const quoted = JSON.stringify(address);
    const yaml = `${FILE_HEADER}  - name: web\n    domains:\n      - hostname: app.example.com\n        port: 8080\n        ipAllowList: [${quoted}]\n        ipDenyList: [${quoted}]\n    ports:\n      - cubePort: 5432\n        allow: [${quoted}]\n`;
    const stderr = await refuse(fx, yaml);
    expect(stderr).toMatch(
      new RegExp(`^cubeform\\.yaml:11:23: cubes\\[0\\]\\.domains\\[0\\]\\.ipAllowList\\[0\\]: ${message.source}`, "m"),
    );
    expect(stderr).toMatch(/^cubeform\.yaml:12:22: cubes\[0\]\.domains\[0\]\.ipDenyList\[0\]: /m);
    expect(stderr).toMatch(/^cubeform\.yaml:15:17: cubes\[0\]\.ports\[0\]\.allow\[0\]: /m);
  });

  test("valid IPv4 and IPv6 addresses and CIDRs pass", async ({ fx }) => {
    writeFileSync(
      join(fx.cwd, "cubeform.yaml"),
      domainWith(`ipAllowList: [0.0.0.0/0, 203.0.113.7, 10.0.0.0/8, "::/0", "2001:db8::/32", "::ffff:192.0.2.1"]`),
    );
    expect(await fx.cli(["validate"])).toMatchObject({ exitCode: 0 });
  });
});

describe("2. YAML that is not one document: a user error with a location, never an unexpected failure", () => {
  test("an unresolved alias", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - *nope\n`);
    expect(stderr).toContain("cubeform.yaml:7:5: unknown alias *nope: no anchor &nope is defined before it");
  });

  test("an alias bomb", async ({ fx }) => {
    const levels = [
      "a: &a [x, x, x, x, x, x, x, x, x]",
      ..."bcdefg".split("").map((c, i) => `${c}: &${c} [${Array(9).fill(`*${"abcdefg"[i]}`).join(", ")}]`),
    ];
    const stderr = await refuse(fx, `apiVersion: cubeform/v1\n${levels.join("\n")}\ncubes: []\n`);
    expect(stderr).toMatch(/^cubeform\.yaml:3:\d+: aliases expand to too many values .*alias bomb/m);
  });

  test("block nesting 2,000 deep", async ({ fx }) => {
    const deep = Array.from({ length: 2000 }, (_, i) => `${" ".repeat(i + 6)}-`).join("\n");
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n    userData:\n${deep} x\n`);
    expect(stderr).toMatch(/^cubeform\.yaml:\d+:\d+: the YAML is nested too deeply to read/m);
    expect(stderr).toContain("(1 problem)");
  });

  test("a multi-document file does not leak the parser's advice", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n---\napiVersion: cubeform/v1\n`);
    expect(stderr).toContain('cubeform.yaml:8:1: the file holds more than one YAML document (a second "---" starts here)');
    expect(stderr).not.toContain("parseAllDocuments");
  });

  test.for([
    ["empty", ""],
    ["only a comment", "# nothing yet\n"],
  ] as const)("an %s file says what to write", async ([, yaml], { fx }) => {
    const stderr = await refuse(fx, yaml);
    expect(stderr).toContain('cubeform.yaml:1:1: the file is empty: start it with "apiVersion: cubeform/v1" and a "cubes:" list');
    expect(stderr).not.toContain("received null");
  });

  test("a list instead of a mapping", async ({ fx }) => {
    expect(await refuse(fx, "- name: web\n")).toContain(
      'cubeform.yaml:1:1: the file must be a mapping with "apiVersion: cubeform/v1" and "cubes:", not a list',
    );
  });
});

describe("3. what is known before apply", () => {
  test("basicAuthPassword without basicAuthUser", async ({ fx }) => {
    const stderr = await refuse(fx, domainWith("basicAuthPassword: ${env:PW}"), { PW: "correct-horse" });
    expect(stderr).toMatch(/^cubeform\.yaml:11:28: cubes\[0\]\.domains\[0\]\.basicAuthPassword: basicAuthPassword needs basicAuthUser/m);
  });

  test("an unknown image or region fails the plan at file:line:col after reading the catalog once, and apply sends no mutation", async ({
    fx,
  }) => {
    writeFileSync(
      join(fx.cwd, "cubeform.yaml"),
      `${FILE_HEADER}  - name: web\n    image: ubuntu-99\n  - name: db\n    region: mars-1\n  - name: cache\n    region: eu-helsinky\n`,
    );
    const planned = await fx.cli(["plan"]);
    expect(planned.exitCode).toBe(1);
    expect(planned.stderr).toContain('cubeform.yaml:8:12: cube "web": image "ubuntu-99" is not offered by the API; images: ubuntu-24.04, ');
    expect(planned.stderr).toContain('cubeform.yaml:10:13: cube "db": region "mars-1" is not offered by the API; regions: eu-nuremberg, ');
    expect(planned.stderr).toContain(
      'cubeform.yaml:12:13: cube "cache": region "eu-helsinky" is not offered by the API (did you mean "eu-helsinki"?)',
    );
    const reads = fx.emulator.admin.requests().map((r) => `${r.method} ${r.path}`);
    expect(reads.filter((r) => r === "GET /api/v1/images")).toHaveLength(1);
    expect(reads.filter((r) => r === "GET /api/v1/regions")).toHaveLength(1);
    const applied = await fx.cli(["apply", "--auto-approve"]);
    expect(applied.exitCode).toBe(1);
    expect(applied.stderr).toContain('image "ubuntu-99" is not offered');
    expect(fx.mutations()).toBe(0);
  });

  test("an image typo on an existing cube is 'not offered (did you mean …)', also without --allow-replace, not a blocked replacement (issue 22 item 7)", async ({
    fx,
  }) => {
    writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FILE_HEADER}  - name: web\n`);
    expect((await fx.cli(["apply", "--auto-approve", "--rate-limit", "1000/60", "--poll-interval", "20"])).exitCode).toBe(0);
    writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FILE_HEADER}  - name: web\n    image: ubuntu-24.4\n`);
    for (const flags of [[], ["--allow-replace"]]) {
      const planned = await fx.cli(["plan", ...flags]);
      expect(planned.exitCode).toBe(1);
      expect(planned.stderr).toContain(
        'cubeform.yaml:8:12: cube "web": image "ubuntu-24.4" is not offered by the API (did you mean "ubuntu-24.04"?)',
      );
      expect(planned.stdout).not.toContain("blocked");
    }
  });

  test("a region typo in defaults is reported once, at its line in defaults (issue 22 item 7)", async ({ fx }) => {
    writeFileSync(
      join(fx.cwd, "cubeform.yaml"),
      FILE_HEADER.replace("defaults:\n", "defaults:\n  region: eu-helsinky\n") +
        "  - name: web\n  - name: db\n  - name: eu\n    region: eu-nuremberg\n",
    );
    const planned = await fx.cli(["plan"]);
    expect(planned.exitCode).toBe(1);
    expect(planned.stderr).toContain(
      'cubeform.yaml:3:11: cubes "web", "db": region "eu-helsinky" is not offered by the API (did you mean "eu-helsinki"?)',
    );
    expect(planned.stderr).toContain("(1 problem)");
  });

  test("a resource above a space's default cap is a warning naming what only the API can judge", async ({ fx }) => {
    writeFileSync(join(fx.cwd, "cubeform.yaml"), `${FILE_HEADER}  - name: web\n    resources: { vcpu: 64, ramGb: 2, diskGb: 10 }\n`);
    const validated = await fx.cli(["validate"]);
    expect(validated.exitCode).toBe(0);
    expect(validated.stderr).toContain(
      "warning: cubeform.yaml:8:16: cube \"web\": resources.vcpu 64 is above a space's default cap of 16 vCPU. Only the API knows your space's caps",
    );
  });
});

describe("4. typos get the closest match", () => {
  test("an unknown key names the key it resembles", async ({ fx }) => {
    const stderr = await refuse(fx, `${FILE_HEADER}  - name: web\n    sshport: 22\n    resources: { vcpus: 1, ramGb: 1, diskGb: 10 }\n`);
    expect(stderr).toContain('cubeform.yaml:8:5: cubes[0]: unknown key "sshport" (did you mean "sshPort"?)');
    expect(stderr).toContain('cubeform.yaml:9:18: cubes[0].resources: unknown key "vcpus" (did you mean "vcpu"?)');
  });

  test("--target that matches no declared cube is an error naming the closest, before anything is sent", async ({ fx }) => {
    for (const command of ["plan", "apply", "drift"]) {
      const result = await fx.cli([command, "--target", "wbe"]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toBe('Error: --target wbe: no cube named "wbe" is declared in cubeform.yaml (did you mean "web"?)\n');
    }
    expect(fx.emulator.admin.requests()).toEqual([]);
  });

  test("an empty --target names the option and which of its values is wrong", async ({ fx }) => {
    const result = await fx.cli(["plan", "--target", "web", "--target", ""]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe("Error: invalid option --target (value 2): Too small: expected string to have >=1 characters\n");
    expect(fx.emulator.admin.requests()).toEqual([]);
  });
});

describe("5. -f: several files, a directory, standard input", () => {
  const cube = (name: string) =>
    `apiVersion: cubeform/v1\ncubes:\n  - name: ${name}\n    image: ubuntu-24.04\n    resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n    sshPublicKey: ${SSH_KEY}\n`;

  test("-f twice loads both files", async ({ fx }) => {
    writeFileSync(join(fx.cwd, "a.yaml"), cube("a"));
    writeFileSync(join(fx.cwd, "b.yaml"), cube("b"));
    const result = await fx.cli(["validate", "-f", "a.yaml", "-f", "b.yaml"]);
    expect(result).toMatchObject({ exitCode: 0, stdout: "ok: 2 cubes (a.yaml, b.yaml)\n" });
  });

  test("-f dir loads its .yaml files; a cube declared twice names both places", async ({ fx }) => {
    mkdirSync(join(fx.cwd, "fleet"));
    writeFileSync(join(fx.cwd, "fleet", "a.yaml"), cube("a"));
    writeFileSync(join(fx.cwd, "fleet", "b.yml"), cube("b"));
    writeFileSync(join(fx.cwd, "fleet", "notes.txt"), "not yaml");
    expect(await fx.cli(["validate", "-f", "fleet"])).toMatchObject({
      exitCode: 0,
      stdout: `ok: 2 cubes (${join("fleet", "a.yaml")}, ${join("fleet", "b.yml")})\n`,
    });
    writeFileSync(join(fx.cwd, "fleet", "c.yaml"), cube("a"));
    const twice = await fx.cli(["plan", "-f", "fleet"]);
    expect(twice.exitCode).toBe(1);
    expect(twice.stderr).toContain(`${join("fleet", "c.yaml")}:3:11: cube "a" is also declared in ${join("fleet", "a.yaml")}:3:11`);
    expect(fx.emulator.admin.requests()).toEqual([]);
  });

  test("an empty directory and a missing file are clear errors", async ({ fx }) => {
    mkdirSync(join(fx.cwd, "empty"));
    expect((await fx.cli(["validate", "-f", "empty"])).stderr).toContain("empty is a directory with no .yaml or .yml files in it");
    expect((await fx.cli(["validate", "-f", "nope.yaml"])).stderr).toContain("cannot read nope.yaml: no such file");
  });

  test("-f - reads standard input", async ({ fx }) => {
    const stdin = new PassThrough();
    stdin.end(cube("piped"));
    const out = new PassThrough();
    let stdout = "";
    out.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await main(["validate", "-f", "-"], { stdout: out, stderr: new PassThrough(), stdin, env: fx.env, cwd: fx.cwd });
    expect(code).toBe(0);
    expect(stdout).toBe("ok: 1 cube (<stdin>)\n");
  });

  test("-f - with a bad document reports <stdin>:line:col", async ({ fx }) => {
    const stdin = new PassThrough();
    stdin.end(`${FILE_HEADER}  - name: web\n    colour: blue\n`);
    const err = new PassThrough();
    let stderr = "";
    err.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await main(["plan", "-f", "-"], { stdout: new PassThrough(), stderr: err, stdin, env: fx.env, cwd: fx.cwd });
    expect(code).toBe(1);
    expect(stderr).toContain('<stdin>:8:5: cubes[0]: unknown key "colour"');
  });
});
