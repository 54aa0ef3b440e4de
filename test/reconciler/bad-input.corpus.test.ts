/**
 * A generated corpus of bad desired-state files (well over 500): every one makes `plan` exit 1
 * with each problem at file:line:col, and not one request reaches the API. Runs in process
 * against one emulator, so the whole corpus takes a few seconds.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { runCli, SSH_KEY, tempProject } from "./support/cli.js";

interface Parts {
  top?: string;
  cube?: string;
  domain?: string;
  port?: string;
}

/** A valid file, with a line added at one level (each added line may replace the key it names). */
function file(parts: Parts = {}): string {
  const cube: Record<string, string> = { name: "web", image: "ubuntu-24.04", resources: "{ vcpu: 1, ramGb: 2, diskGb: 10 }" };
  const domain: Record<string, string> = { hostname: "app.example.com", port: "8080" };
  const port: Record<string, string> = { cubePort: "5432", allow: "[203.0.113.0/24]" };
  const set = (target: Record<string, string>, line: string | undefined) => {
    if (line === undefined) return;
    const [key, ...rest] = line.split(":");
    target[key as string] = rest.join(":").trim();
  };
  set(cube, parts.cube);
  set(domain, parts.domain);
  set(port, parts.port);
  const lines = ["apiVersion: cubeform/v1", "defaults:", `  sshPublicKey: ${SSH_KEY}`];
  if (parts.top !== undefined) lines.push(parts.top);
  lines.push("cubes:");
  const cubeLines = Object.entries(cube).map(([k, v]) => `${k}: ${v}`);
  lines.push(`  - ${cubeLines[0]}`, ...cubeLines.slice(1).map((l) => `    ${l}`));
  lines.push("    domains:", ...Object.entries(domain).map(([k, v], i) => `${i === 0 ? "      - " : "        "}${k}: ${v}`));
  lines.push("    ports:", ...Object.entries(port).map(([k, v], i) => `${i === 0 ? "      - " : "        "}${k}: ${v}`));
  return `${lines.join("\n")}\n`;
}

const NOT_A_STRING = ["42", "[a, b]", "{ a: 1 }", "true", "3.5", "null"];
const NOT_A_BOOLEAN = ["yes", "no", "1", "0", '"true"', "[true]", "{ on: true }", "on", "null"];
const NOT_A_PORT = ["0", "65536", "-1", "22.5", '"22"', "[22]", "true", "{ port: 22 }", "1e9", "null"];
const BAD_CIDRS = [
  "1.2.3.4/33",
  "256.1.1.1",
  "2001:db8::/129",
  "300.1.1.1/40",
  "1.2.3",
  "1.2.3.4.5",
  "01.2.3.4",
  "1.2.3.4/",
  "1.2.3.4/-1",
  "1.2.3.4/08",
  "::1/200",
  "2001:db8:::1",
  "gggg::1",
  "1.2.3.4 ",
  "localhost",
  "*",
  "10.0.0.0/8/8",
  "fe80::1%eth0",
  "1.2.3.256/24",
  "999.999.999.999",
  "",
  "/24",
  "1.2.3.4/3 2",
  "1.2.3.4\\24",
  "::ffff:256.1.1.1",
  "2001:db8::1::2",
  "12345::1",
  "2001:db8::/64x",
  "0x7f.0.0.1",
  "1.2.3.-4",
];
const BAD_HOSTNAMES = [
  "App.Example.com",
  "example",
  "-a.example.com",
  "a..example.com",
  "a_b.example.com",
  "exa mple.com",
  "*.*.example.com",
  "a.example.c",
  '"http://a.example.com"',
  "42",
];
const TYPO_KEYS = [
  "nmae",
  "imgae",
  "reigon",
  "resouces",
  "sshPublicKy",
  "userdata",
  "terminationprotection",
  "powr",
  "sshport",
  "domain",
  "port",
  "lifecyle",
  "colour",
  "vcpu",
  "size",
];

function corpus(): Record<string, string> {
  const files: Record<string, string> = {};
  const add = (name: string, text: string) => {
    files[`${String(Object.keys(files).length).padStart(4, "0")}-${name.replace(/[^A-Za-z0-9.-]+/g, "_").slice(0, 60)}.yaml`] = text;
  };
  for (const key of ["name", "image", "region", "sshPublicKey", "id", "userDataFile", "sshPublicKeyFile"]) {
    for (const value of NOT_A_STRING)
      if (!(key === "userDataFile" && value === "null")) add(`cube-${key}-${value}`, file({ cube: `${key}: ${value}` }));
    add(`cube-${key}-empty`, file({ cube: `${key}: ""` }));
  }
  for (const value of ['"-web"', '"web-"', '"we b"', '"wéb"', `"${"a".repeat(65)}"`, '"web.example"', '"web_1"'])
    add(`cube-name-${value}`, file({ cube: `name: ${value}` }));
  for (const key of ["terminationProtection"])
    for (const value of NOT_A_BOOLEAN) add(`cube-${key}-${value}`, file({ cube: `${key}: ${value}` }));
  for (const value of ["on", "off", "Running", "sleeping", "1", "true", "[running]", "null"])
    add(`cube-power-${value}`, file({ cube: `power: ${value}` }));
  for (const value of NOT_A_PORT) add(`cube-sshPort-${value}`, file({ cube: `sshPort: ${value}` }));
  for (const value of ["42", "[1, 2]", "{ a: 1 }", "true"]) add(`cube-userData-${value}`, file({ cube: `userData: ${value}` }));
  for (const value of [
    "{ vcpu: 0, ramGb: 2, diskGb: 10 }",
    "{ vcpu: 1.5, ramGb: 2, diskGb: 10 }",
    "{ vcpu: -1, ramGb: 2, diskGb: 10 }",
    '{ vcpu: "2", ramGb: 2, diskGb: 10 }',
    "{ vcpu: 1, ramGb: 0, diskGb: 10 }",
    "{ vcpu: 1, ramGb: 1.5, diskGb: 10 }",
    "{ vcpu: 1, ramGb: 2, diskGb: 5 }",
    "{ vcpu: 1, ramGb: 2, diskGb: 12 }",
    "{ vcpu: 1, ramGb: 2, diskGb: 10.5 }",
    "{ vcpu: 1, ramGb: 2 }",
    "{ vcpu: 1, diskGb: 10 }",
    "{ ramGb: 2, diskGb: 10 }",
    "{ vcpu: 1, ramGb: 2, diskGb: 10, gpu: 1 }",
    "{ cpu: 1, ramGb: 2, diskGb: 10 }",
    '"small"',
    "[1, 2, 10]",
    "4",
    "null",
    "{}",
  ])
    add(`cube-resources-${value}`, file({ cube: `resources: ${value}` }));
  for (const value of ['"not a key"', '"ssh-ed25519"', '"ssh-foo AAAA"', '"AAAAC3NzaC1lZDI1NTE5"', '"ssh-rsa AAAA!!"'])
    add(`cube-sshPublicKey-${value}`, file({ cube: `sshPublicKey: ${value}` }));
  for (const value of [
    '{ allowReplace: "yes" }',
    "{ ignoreChanges: [colour] }",
    "{ ignoreChanges: image }",
    "{ allowReplce: true }",
    "[]",
    "true",
  ])
    add(`cube-lifecycle-${value}`, file({ cube: `lifecycle: ${value}` }));
  for (const value of ["42", '"text"', "{ a: 1 }", "[42]", '["x"]']) add(`cube-domains-${value}`, file({ cube: `domains: ${value}` }));
  for (const key of TYPO_KEYS) add(`cube-typo-${key}`, file({ cube: `${key}: 1` }));

  for (const value of BAD_HOSTNAMES) add(`domain-hostname-${value}`, file({ domain: `hostname: ${value}` }));
  for (const value of NOT_A_PORT) add(`domain-port-${value}`, file({ domain: `port: ${value}` }));
  const domainFields: [string, string[]][] = [
    ["securityHeadersMode", ["strict", "1", "[enforced]", "true"]],
    ["responseHeaderTimeoutSecs", ["5", "9", "3601", "10.5", '"30"', "-1"]],
    ["maxRequestBodyMb", ["0", "10241", "1.5", '"10"', "[1]"]],
    ["originScheme", ["ftp", "HTTP", "1", "[http]", "null"]],
    ["proxyProtocol", ["v3", "1", "true", "V1", "[v1]"]],
    ["responseCompression", NOT_A_BOOLEAN],
    ["basicAuthUser", ['""', "42", "[admin]", "{ a: 1 }"]],
    ["basicAuthPassword", ["hunter2hunter2", '"${env:PW} "', '"x${env:PW}"', "${env:NOT_SET_ANYWHERE}", "42"]],
    [
      "corsConfig",
      [
        '"*"',
        "{ allowedOrigins: x }",
        "{ allowedOrigins: [a], maxAgeSeconds: -1 }",
        "{ allowedOrigins: [a], colour: 1 }",
        "{ allowedOrigins: [a], allowCredentials: maybe }",
        "[a]",
      ],
    ],
    ["responseHeaderOverrides", ['"x"', "42", "[a]"]],
    ["ipAllowList", ["42", '"10.0.0.0/8"', "{ a: 1 }", "[42]"]],
  ];
  for (const [key, values] of domainFields) for (const value of values) add(`domain-${key}-${value}`, file({ domain: `${key}: ${value}` }));
  for (const cidr of BAD_CIDRS) {
    add(`domain-ipAllowList-${cidr}`, file({ domain: `ipAllowList: [${JSON.stringify(cidr)}]` }));
    add(`domain-ipDenyList-${cidr}`, file({ domain: `ipDenyList: [10.0.0.0/8, ${JSON.stringify(cidr)}]` }));
    add(`port-allow-${cidr}`, file({ port: `allow: [${JSON.stringify(cidr)}, 203.0.113.7]` }));
  }
  add("domain-password-without-user", file({ domain: "basicAuthPassword: ${env:PW}" }));
  for (const key of ["hostnme", "Port", "ipAllowlist", "ipAlowList", "basicAuth", "originscheme", "headers", "tls"])
    add(`domain-typo-${key}`, file({ domain: `${key}: 1` }));

  for (const value of NOT_A_PORT) add(`port-cubePort-${value}`, file({ port: `cubePort: ${value}` }));
  for (const value of [`"${"x".repeat(101)}"`, "42", "[a]", "{ a: 1 }"]) add(`port-label-${value}`, file({ port: `label: ${value}` }));
  for (const value of NOT_A_BOOLEAN) add(`port-udp-${value}`, file({ port: `udp: ${value}` }));
  for (const value of ['"10.0.0.0/8"', "42", "{ a: 1 }", "[42]", "[[10.0.0.0/8]]"])
    add(`port-allow-${value}`, file({ port: `allow: ${value}` }));
  for (const key of ["cubeport", "hostPort", "whitelistedIps", "allowList", "udpEnabled", "lable"])
    add(`port-typo-${key}`, file({ port: `${key}: 1` }));

  for (const value of [
    "prune: yes",
    "prune: 1",
    'space: ""',
    "space: 42",
    "space: [a]",
    "defaults: 42",
    "defaults: { image: 42 }",
    "defaults: { colour: blue }",
    "defaults: { power: on }",
    "defaults: { resources: { vcpu: 0, ramGb: 1, diskGb: 10 } }",
    "colour: blue",
    "apiversion: cubeform/v1",
    "metadata: { name: x }",
    "kind: Fleet",
  ]) {
    add(`top-${value}`, file({ top: value }));
  }
  const valid = file();
  for (const version of ["cubeform/v2", "v1", '""', "42", "null"])
    add(`apiVersion-${version}`, valid.replace("apiVersion: cubeform/v1", `apiVersion: ${version}`));
  add("apiVersion-missing", valid.replace("apiVersion: cubeform/v1\n", ""));
  add("cubes-scalar", `${valid.slice(0, valid.indexOf("cubes:"))}cubes: web\n`);
  add("cubes-map", `${valid.slice(0, valid.indexOf("cubes:"))}cubes: { web: {} }\n`);
  add("cube-missing-image", valid.replace("    image: ubuntu-24.04\n", ""));
  add("cube-missing-resources", valid.replace("    resources: { vcpu: 1, ramGb: 2, diskGb: 10 }\n", ""));
  add("cube-missing-name", valid.replace("  - name: web\n    image", "  - image"));
  add("cube-missing-key", valid.replace(`  sshPublicKey: ${SSH_KEY}\n`, "  image: ubuntu-24.04\n"));
  add(
    "cube-key-and-file",
    valid.replace("    image: ubuntu-24.04\n", `    image: ubuntu-24.04\n    sshPublicKey: ${SSH_KEY}\n    sshPublicKeyFile: id.pub\n`),
  );
  add("cube-key-file-missing", valid.replace(`  sshPublicKey: ${SSH_KEY}\n`, "  sshPublicKeyFile: no-such-key.pub\n"));
  add("cube-userData-file-missing", file({ cube: "userDataFile: no-such-init.sh" }));
  add("cube-userData-too-big", file({ cube: `userData: "${"x".repeat(16_385)}"` }));
  add("cube-env-missing", file({ cube: 'userData: "token=${env:NOT_SET_ANYWHERE}"' }));
  add("duplicate-cube", `${valid}  - name: web\n    image: ubuntu-24.04\n    resources: { vcpu: 1, ramGb: 2, diskGb: 10 }\n`);
  add(
    "duplicate-hostname",
    `${valid}  - name: db\n    image: ubuntu-24.04\n    resources: { vcpu: 1, ramGb: 2, diskGb: 10 }\n    domains:\n      - hostname: app.example.com\n        port: 80\n`,
  );
  add("duplicate-key", valid.replace("    image: ubuntu-24.04\n", "    image: ubuntu-24.04\n    image: debian-13\n"));

  // YAML the parser refuses or cannot make one document of.
  const yamlBreakers: Record<string, string> = {
    "unclosed-flow": valid.replace("{ vcpu: 1, ramGb: 2, diskGb: 10 }", "{ vcpu: 1, ramGb: 2, diskGb: 10"),
    "unclosed-seq": valid.replace("[203.0.113.0/24]", "[203.0.113.0/24"),
    "unterminated-quote": valid.replace("name: web", 'name: "web'),
    "tab-indent": valid.replace("    image:", "\timage:"),
    "bad-indent": valid.replace("    image:", "   image:"),
    "over-indent": valid.replace("    image:", "      image:"),
    "unresolved-alias": `${valid}  - *nope\n`,
    "unresolved-alias-value": file({ cube: "userData: *missing" }),
    "multi-doc": `${valid}---\napiVersion: cubeform/v1\n`,
    "multi-doc-empty-second": `${valid}---\n`,
    "doc-end-then-more": `${valid}...\ncolour: blue\n`,
    empty: "",
    "only-comment": "# nothing here\n",
    "only-whitespace": "\n\n   \n",
    "root-list": "- name: web\n",
    "root-scalar": "hello\n",
    "root-number": "42\n",
    "alias-bomb": `apiVersion: cubeform/v1\na: &a [x, x, x, x, x, x, x, x, x]\n${"bcdefg"
      .split("")
      .map((c, i) => `${c}: &${c} [${Array(9).fill(`*${"abcdefg"[i]}`).join(", ")}]`)
      .join("\n")}\ncubes: []\n`,
    "deep-block": `${valid}  - name: deep\n    userData:\n${Array.from({ length: 2000 }, (_, i) => `${" ".repeat(i + 6)}-`).join("\n")} x\n`,
    "deep-flow": file({ cube: `userData: ${"[".repeat(3000)}${"]".repeat(3000)}` }),
    "colon-in-plain": valid.replace("name: web", "name: web: db"),
    "unknown-tag": file({ cube: "userData: !vault abc" }),
    "binary-garbage": `${valid}\u0000\u0001\n`,
    "mapping-in-seq-error": valid.replace("      - hostname: app.example.com", "      - hostname: app.example.com\n      hostname2"),
  };
  for (const [name, text] of Object.entries(yamlBreakers)) add(`yaml-${name}`, text);

  // The same kinds of mistakes under defaults:, and in second place in a list.
  for (const key of ["image", "region", "sshPublicKey"])
    for (const value of NOT_A_STRING) add(`defaults-${key}-${value}`, file({ top: `  ${key}: ${value}` }));
  for (const value of ["on", "off", "Running", "sleeping", "1", "true", "[running]", "null"])
    add(`defaults-power-${value}`, file({ top: `  power: ${value}` }));
  for (const value of NOT_A_PORT) add(`defaults-sshPort-${value}`, file({ top: `  sshPort: ${value}` }));
  for (const value of NOT_A_BOOLEAN) add(`defaults-terminationProtection-${value}`, file({ top: `  terminationProtection: ${value}` }));
  for (const value of [
    "{ vcpu: 0, ramGb: 2, diskGb: 10 }",
    "{ vcpu: 1, ramGb: 2, diskGb: 12 }",
    "{ vcpu: 1, ramGb: 2 }",
    '"small"',
    "[1]",
    "null",
    "{ cpu: 1, ramGb: 2, diskGb: 10 }",
  ]) {
    add(`defaults-resources-${value}`, file({ top: `  resources: ${value}` }));
  }
  for (const key of TYPO_KEYS) add(`defaults-typo-${key}`, file({ top: `  ${key}: 1` }));
  for (const key of ["apiversion", "cube", "Cubes", "defaults2", "prun", "spaces", "version"])
    add(`top-typo-${key}`, file({ top: `${key}: 1` }));
  for (const cidr of BAD_CIDRS) {
    add(`port-allow-ipv6-then-${cidr}`, file({ port: `allow: ["2001:db8::/48", ${JSON.stringify(cidr)}]` }));
    add(`domain-ipAllowList-then-${cidr}`, file({ domain: `ipAllowList: ["::1", 10.0.0.0/8, ${JSON.stringify(cidr)}]` }));
    add(`domain-ipDenyList-ipv6-then-${cidr}`, file({ domain: `ipDenyList: ["2001:db8::1", ${JSON.stringify(cidr)}]` }));
    const block = (indent: string) => `\n${indent}- 192.0.2.0/24\n${indent}- ${JSON.stringify(cidr)}`;
    add(`port-allow-block-${cidr}`, file({ port: `allow:${block("          ")}` }));
    add(`domain-ipAllowList-block-${cidr}`, file({ domain: `ipAllowList:${block("          ")}` }));
  }
  return files;
}

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 1000, windowMs: 60_000 } });
});
afterAll(async () => {
  await emulator?.close();
});

describe("a generated corpus of bad files", () => {
  it("every file: plan exits 1, every problem has file:line:col, and no request is sent", async () => {
    const files = corpus();
    const cwd = tempProject({ "id.pub": `${SSH_KEY}\n` });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
    const env = { CUBE_API_URL: emulator.url, CUBE_API_KEY: emulator.apiKey, PW: "correct-horse-battery" };
    const failures: string[] = [];
    for (const name of Object.keys(files)) {
      const { exitCode, stdout, stderr } = await runCli(["plan", "-f", name], { cwd, env });
      const lines = stderr.trimEnd().split("\n");
      const problems = lines.slice(0, -1).filter((line) => !line.startsWith("warning: "));
      const located =
        problems.length > 0 &&
        problems.every((line) => line.startsWith(`${name}:`) && /^[^:]+:\d+:\d+: \S/.test(line) && !/:0:0:/.test(line));
      const last = lines.at(-1) ?? "";
      if (
        exitCode !== 1 ||
        !located ||
        !last.endsWith("nothing was sent to the API") ||
        stdout !== "" ||
        stderr.includes("unexpected failure")
      ) {
        failures.push(`${name} (exit ${exitCode}):\n${stderr}`);
      }
    }
    expect(failures, failures.slice(0, 8).join("\n")).toEqual([]);
    expect(Object.keys(files).length).toBeGreaterThan(600);
    expect(emulator.admin.requests()).toEqual([]);
  }, 120_000);
});
