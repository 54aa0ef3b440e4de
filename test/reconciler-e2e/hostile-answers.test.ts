/**
 * Answers from the API are input: a rewriting proxy in front of the emulator plays a hostile API,
 * and what the CLI runs, writes and prints is checked with the payloads of issue 23. No payload
 * runs against the machine: `ssh` is a fake on PATH that records its argv, and payloads only
 * touch marker files in temp dirs.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { parse } from "yaml";
import { APPLY, describeRun, plainFleet, project, RATE, tempDir, waitFor, type Project } from "./support.js";
import { rewritingProxy, type Exchange } from "../support/rewriting-proxy.js";
import { metricsBase, watchArgs } from "./support/watch.js";

const ATTACKER_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIATTACKERATTACKERATTACKERATTACKERATTACKER";

/** A project with cube "web" applied, and the CLI's environment pointed at `url` (the proxy). */
async function applied(files: Record<string, string> = { "cubeform.yaml": plainFleet("web") }): Promise<Project> {
  const p = await project(files);
  const run = await p.run([...APPLY]);
  expect(run.code, describeRun(run)).toBe(0);
  return p;
}

/** Rewrites the body of GET …/ssh (enveloped or not). */
const sshAnswer = (change: (ssh: Record<string, unknown>) => void) => (x: Exchange) => {
  if (x.method !== "GET" || !/\/ssh$/.test(x.path.split("?")[0] ?? "")) return undefined;
  const body = x.body as Record<string, unknown>;
  change((body.ssh as Record<string, unknown> | undefined) ?? body);
  return { status: x.status, body };
};

/** A fake ssh that records its argv (one per line) and runs nothing. */
function fakeSsh(): { env: Record<string, string>; argv: () => string[] | undefined } {
  const dir = tempDir();
  const log = join(dir, "argv");
  writeFileSync(join(dir, "ssh"), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > "${log}"\n`);
  chmodSync(join(dir, "ssh"), 0o755);
  return {
    env: { PATH: `${dir}:${process.env.PATH ?? ""}` },
    argv: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(0, -1) : undefined),
  };
}

test("cube ssh --exec: a user like -oProxyCommand=… never reaches ssh; an honest answer puts -- before the destination", async () => {
  const p = await applied();
  const marker = join(tempDir(), "pwned");
  const hostile = await rewritingProxy(
    p.emu,
    sshAnswer((ssh) => (ssh.user = `-oProxyCommand=touch ${marker}`)),
  );
  const ssh = fakeSsh();
  const env = { ...ssh.env, CUBE_API_URL: hostile, XDG_CONFIG_HOME: tempDir() };
  const refused = await p.run(["cube", "ssh", "web", "--exec"], env);
  expect(refused.code, describeRun(refused)).toBe(1);
  expect(refused.stderr).toContain(`the API's ssh answer for cube "web" is not used: its user is not a valid login name`);
  expect(ssh.argv()).toBeUndefined();
  expect(existsSync(marker)).toBe(false);

  const honest = await p.run(["cube", "ssh", "web", "--exec", "--", "uptime"], { ...ssh.env, XDG_CONFIG_HOME: tempDir() });
  expect(honest.code, describeRun(honest)).toBe(0);
  const argv = ssh.argv() ?? [];
  expect(argv.slice(argv.indexOf("--"))).toEqual(["--", expect.stringMatching(/^ubuntu@[^@\s]+$/), "uptime"]);
});

test("the printed ssh commands (cube ssh, cube show, show) carry no payload; a user that needs quoting is quoted", async () => {
  const p = await applied();
  const hostile = await rewritingProxy(
    p.emu,
    sshAnswer((ssh) => (ssh.user = "-oProxyCommand=touch /tmp/pwned")),
  );
  for (const args of [["cube", "ssh", "web"], ["cube", "show", "web"], ["show"]]) {
    const run = await p.run(args, { CUBE_API_URL: hostile, XDG_CONFIG_HOME: tempDir() });
    expect(run.stdout + run.stderr).not.toContain("ProxyCommand");
  }
  const shown = await p.run(["show"], { CUBE_API_URL: hostile });
  expect(shown.stdout).toContain("ssh:     not shown: the API's answer is not usable: its user is not a valid login name");
  const honest = await p.run(["show"]);
  expect(honest.stdout).toMatch(/ssh: {5}ssh -p \d+ -- ubuntu@\S+\n/);
});

test("known_hosts: a host with a line break, or a key line that is not a key, writes nothing", async () => {
  const p = await applied();
  const config = tempDir();
  const knownHosts = join(config, "cubeform", "known_hosts");
  const payloads: ((ssh: Record<string, unknown>) => void)[] = [
    (ssh) => {
      ssh.host = `cube.example.com\n* ${ATTACKER_KEY}`;
      ssh.hostKeys = [{ type: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp" }];
    },
    (ssh) =>
      (ssh.hostKeys = [
        { type: "ssh-ed25519", key: `AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp\n* ${ATTACKER_KEY}` },
      ]),
    (ssh) =>
      (ssh.hostKeys = [
        {
          type: `ssh-ed25519 AAAA\n* ${ATTACKER_KEY}\n[h]:1 ssh-ed25519`,
          key: "AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp",
        },
      ]),
  ];
  for (const payload of payloads) {
    const hostile = await rewritingProxy(p.emu, sshAnswer(payload));
    const run = await p.run(["cube", "ssh", "web"], { CUBE_API_URL: hostile, XDG_CONFIG_HOME: config });
    expect(run.code, describeRun(run)).toBe(1);
    expect(existsSync(knownHosts) ? readFileSync(knownHosts, "utf8") : "").not.toContain("ATTACKER");
  }
});

const HOSTILE_NAMES = [
  "\u001b]0;retitled\u0007\u001b[2Jcleared",
  "x\n::error::injected\n::add-mask::secret",
  "y\n```\n# Fake heading\n![img](https://attacker.example/i.png)",
];

/** The live cubes' names, as the hostile API lists them (the first cubes get the payloads). */
const renamedCubes = (x: Exchange) => {
  if (x.method !== "GET" || !/\/cubes(\?|$)/.test(x.path)) return undefined;
  const body = x.body as { cubes?: { name: string }[] } | { name: string }[];
  const cubes = Array.isArray(body) ? body : (body.cubes ?? []);
  cubes.forEach((cube, i) => (cube.name = HOSTILE_NAMES[i] ?? cube.name));
  return { status: x.status, body };
};

test("plan: names from the API reach no terminal, workflow command or markdown as markup", async () => {
  const p = await applied({ "cubeform.yaml": plainFleet("a", "b", "c") });
  writeFileSync(join(p.cwd, "empty.yaml"), plainFleet("other"));
  const hostile = await rewritingProxy(p.emu, renamedCubes);
  const env = { CUBE_API_URL: hostile };
  const text = await p.run(["plan", "-f", "empty.yaml", ...RATE], env);
  expect(text.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  expect(text.stdout).toContain("\\u001b]0;retitled\\u0007\\u001b[2Jcleared");
  const github = await p.run(["plan", "-f", "empty.yaml", "--format", "github", ...RATE], env);
  const commands = github.stdout.split("\n").filter((line) => /^\s*::/.test(line));
  const stop = /^::stop-commands::([0-9a-f]{32})$/.exec(commands.find((line) => line.startsWith("::stop-commands::")) ?? "");
  expect(stop).not.toBeNull();
  // Before the stop: annotations only; after it, nothing the runner obeys until its token ends it.
  const inert = github.stdout.slice(github.stdout.indexOf(stop![0]) + stop![0].length, github.stdout.indexOf(`::${stop![1]}::`));
  expect(
    github.stdout
      .slice(0, github.stdout.indexOf(stop![0]))
      .split("\n")
      .every((line) => line === "" || /^::(warning|error) [^\n]*$/.test(line)),
  ).toBe(true);
  expect(github.stdout.slice(0, github.stdout.indexOf(stop![0]))).not.toMatch(/^::(add-mask|error)::/m);
  expect(inert).toContain("::error::injected");
  const markdown = await p.run(["plan", "-f", "empty.yaml", "--format", "markdown", ...RATE], env);
  expect(markdown.stdout).not.toContain("```");
  expect(markdown.stdout).not.toMatch(/^#+ Fake/m);
  expect(markdown.stdout).not.toContain("![img]");
});

test("dns --format zone: a value with a line break adds no record", async () => {
  const p = await applied({
    "cubeform.yaml": `${plainFleet("web")}    domains:\n      - hostname: www.e2e.example.com\n        port: 8080\n`,
  });
  const hostile = await rewritingProxy(p.emu, (x) => {
    if (x.method !== "GET" || !/\/records(\?|$)/.test(x.path)) return undefined;
    const body = x.body as { records: { value: string; host: string }[] };
    for (const r of body.records) {
      r.value = `${r.value}\nexample.com. 300 IN NS ns.attacker.example.`;
      r.host = `${r.host}\nexample.org. 300 IN NS ns.attacker.example.`;
    }
    return { status: x.status, body };
  });
  const zone = await p.run(["dns", "web", "--format", "zone", ...RATE], { CUBE_API_URL: hostile });
  expect(zone.code, describeRun(zone)).toBe(0);
  const records = zone.stdout.split("\n").filter((line) => line !== "" && !line.startsWith(";"));
  expect(records.length).toBeGreaterThan(0);
  for (const line of records) expect(line).toMatch(/^\S+ 300 IN (CNAME|TXT|A) /);
  expect(zone.stdout).not.toMatch(/^example\.(com|org)\./m);
});

test("import --format pulumi: names with line breaks and comment ends give a program that parses and runs nothing", async () => {
  const p = await applied({
    "cubeform.yaml": `${plainFleet("web")}    domains:\n      - hostname: www.e2e.example.com\n        port: 8080\n`,
  });
  const marker = join(tempDir(), "pwned");
  const payload = `\nrequire("node:fs").writeFileSync(${JSON.stringify(marker)}, "x");\n`;
  const hostile = await rewritingProxy(p.emu, (x) => {
    if (x.method !== "GET") return undefined;
    const text = JSON.stringify(x.body);
    if (/\/cubes(\?|$)/.test(x.path))
      return {
        status: x.status,
        body: JSON.parse(text.replaceAll('"name":"web"', `"name":${JSON.stringify(`web${payload}*/${payload}`)}`)),
      };
    if (/\/domains(\?|$)/.test(x.path))
      return {
        status: x.status,
        body: JSON.parse(
          text
            .replaceAll('"domain":"www.e2e.example.com"', `"domain":${JSON.stringify(`www.e2e.example.com${payload}`)}`)
            .replaceAll('"port":8080', '"port":null'),
        ),
      };
    return undefined;
  });
  const program = await p.run(["import", "--format", "pulumi", ...RATE], { CUBE_API_URL: hostile });
  expect(program.code, describeRun(program)).toBe(0);
  const source = ts.createSourceFile("index.ts", program.stdout, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  expect((source as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics).toEqual([]);
  // The payload is code only if a statement calls writeFileSync: it may appear inside strings and comments only.
  const calls: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) calls.push(node.expression.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  expect(calls.filter((call) => call.includes("writeFileSync"))).toEqual([]);

  const yaml = await p.run(["import", ...RATE], { CUBE_API_URL: hostile });
  expect(yaml.code, describeRun(yaml)).toBe(0);
  const doc = parse(yaml.stdout) as { cubes: { name: string }[] };
  expect(doc.cubes.map((c) => c.name)).toEqual([`web${payload}*/${payload}`]);
  expect(Object.keys(doc).sort()).toEqual(["apiVersion", "cubes", "defaults"]);
});

/** The hostile API of issue 23 item 7: every POST to `path` is refused with the request body echoed. */
const echoRejected = (path: RegExp) => (x: Exchange) =>
  x.method === "POST" && path.test(x.path) ? { status: 400, body: { error: `rejected body: ${x.requestBody}` } } : undefined;

const PASSWORD = 'hunter2"correct-horse';
/** A `${env:}` value of no secret-sounding variable; its quote and backslash are escaped in the echoed body, twice in --format json. */
const JOIN = 'join-7f3a"c\\91e';
const withDomain = (host: string) =>
  `${plainFleet("web")}    domains:\n      - hostname: ${host}.e2e.example.com\n        port: 8080\n        basicAuthUser: admin\n        basicAuthPassword: \${env:WEB_BASIC_AUTH}\n`;
/** The proxy passes the request on before it answers: each run creates a cube of its own. */
const withJob = (name: string) => `${plainFleet("web")}  - name: ${name}\n    userData: "agent --join \${env:JOIN_CODE}"\n`;

test("issue 23 item 7: a domain body the API rejects with the password echoed: the password is printed nowhere (text, json), escaped or not", async () => {
  const p = await applied({ "cubeform.yaml": plainFleet("web"), "text.yaml": withDomain("text"), "json.yaml": withDomain("json") });
  const hostile = await rewritingProxy(p.emu, echoRejected(/\/domains$/));
  for (const format of ["text", "json"]) {
    const run = await p.run([...APPLY, "-f", `${format}.yaml`, "--format", format], { CUBE_API_URL: hostile, WEB_BASIC_AUTH: PASSWORD });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stdout + run.stderr).toContain("rejected body");
    expect(run.stdout + run.stderr).not.toContain("correct-horse");
    expect(run.stdout + run.stderr).toContain("[REDACTED]");
  }
});

test("issue 23 item 7: a resolved ${env:} value is printed nowhere: plan, apply (text, json) and a saved plan's apply when the API echoes it", async () => {
  const p = await applied({
    "cubeform.yaml": plainFleet("web"),
    "saved.yaml": withJob("saved"),
    "text.yaml": withJob("text"),
    "json.yaml": withJob("json"),
  });
  const env = { JOIN_CODE: JOIN };
  const plan = await p.run(["plan", "-f", "saved.yaml", "--out", "plan.json", ...RATE], env);
  expect(plan.code, describeRun(plan)).toBe(2);
  const hostile = { ...env, CUBE_API_URL: await rewritingProxy(p.emu, echoRejected(/\/cubes$/)) };
  const runs = [
    plan,
    await p.run(["apply", "plan.json", ...RATE], hostile),
    await p.run([...APPLY, "-f", "text.yaml"], hostile),
    await p.run([...APPLY, "-f", "json.yaml", "--format", "json"], hostile),
  ];
  for (const run of runs) expect(run.stdout + run.stderr, describeRun(run)).not.toContain("join-7f3a");
  for (const run of runs.slice(1)) {
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stdout + run.stderr).toContain("rejected body");
    expect(run.stdout + run.stderr).toContain("[REDACTED]");
  }
});

test.each([
  ["basic-auth password", "domains", withDomain("watch")],
  ["resolved ${env:} value", "cubes", withJob("job")],
])(
  "issue 23 item 7: /readyz of watch --metrics-port serves no %s that a failed round's API error echoed, nor do its logs",
  async (_what, path, fleet) => {
    const p = await applied({ "cubeform.yaml": plainFleet("web"), "watch.yaml": fleet });
    const hostile = await rewritingProxy(p.emu, echoRejected(new RegExp(`/${path}$`)));
    const watch = p.start(watchArgs("200ms", "--apply", "-f", "watch.yaml"), {
      CUBE_API_URL: hostile,
      WEB_BASIC_AUTH: PASSWORD,
      JOIN_CODE: JOIN,
    });
    const base = await metricsBase(watch);
    const body = await waitFor(
      async () => {
        const answer = await fetch(`${base}/readyz`);
        const text = await answer.text();
        return answer.status === 503 && text.includes("rejected body") ? text : undefined;
      },
      { timeoutMs: 20_000, message: "/readyz naming the rejected body" },
    );
    const status = await (await fetch(`${base}/status`)).text();
    expect(status).toContain("rejected body");
    for (const text of [body, status, watch.stdout() + watch.stderr()]) {
      expect(text).toContain("[REDACTED]");
      for (const secret of ["correct-horse", "join-7f3a"]) expect(text).not.toContain(secret);
    }
  },
);
