/**
 * Start-up: a run loads only the command it invokes (commands/index.ts). `--version` and
 * `--help` load no command at all, and every entry of the list matches its module.
 */
import { execFile, spawnSync } from "node:child_process";
import http2 from "node:http2";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { expect, test } from "vitest";
import { COMMANDS } from "../../reconciler/commands/index.js";
import { testCacheHome } from "../support/cache-home.js";
import { GRACEFUL_STOP_COMMANDS } from "../../reconciler/main.js";
import { FLEET_YAML } from "./support/fixtures.js";
import { startEmulator } from "../../emulator/index.js";
import { runCli, tempProject } from "./support/cli.js";
// @ts-expect-error: a build script, plain JavaScript without types
import { http2StandIn } from "../../build/cli-bundle.mjs";

const BIN = fileURLToPath(new URL("../../bin/cubeform.js", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../../dist/cli", import.meta.url));
const LOG_LOADS = fileURLToPath(new URL("./fixtures/log-loads.mjs", import.meta.url));
const LOG_BUILTINS = fileURLToPath(new URL("./fixtures/log-builtins.cjs", import.meta.url));

/**
 * The source modules (relative to the package, or the dependency's name) that a run of the bin
 * loads. The bin runs the bundle (dist/cli, build/cli-bundle.mjs): CUBEFORM_DEBUG_LOAD=1 names
 * each chunk it loads, and each chunk names the modules it holds in its `// path` lines. Node's
 * own loaders load the rest (the bin, dependencies left out of the bundle): LOG_LOADS names those.
 */
function modulesLoadedBy(args: string[]): string[] {
  return byPackage(filesLoadedBy(args));
}

/** The source files a run loads (paths relative to the package), dependencies' files included. */
function filesLoadedBy(args: string[]): string[] {
  const run = spawnSync(process.execPath, ["--import", LOG_LOADS, BIN, ...args], {
    encoding: "utf8",
    env: { ...testCacheHome(), CUBEFORM_DEBUG_LOAD: "1" },
  });
  return filesNamedIn(run.stderr);
}

/** filesLoadedBy for a plan against an emulator of this process (which must keep answering meanwhile); exit 2 says there are changes. */
async function filesLoadedByPlan(args: string[], env: Record<string, string>): Promise<string[]> {
  const run = await promisify(execFile)(process.execPath, ["--import", LOG_LOADS, BIN, "plan", ...args], {
    encoding: "utf8",
    env: { ...testCacheHome(), CUBEFORM_DEBUG_LOAD: "1", ...env },
  }).catch((e: { code?: number; stderr: string }) => {
    if (e.code === 2) return e;
    throw new Error(`plan failed: ${e.stderr}`);
  });
  return filesNamedIn(run.stderr);
}

function filesNamedIn(stderr: string): string[] {
  const lines = stderr.split("\n");
  const byNode = lines.filter((line) => line.startsWith("LOAD ")).map((line) => fileURLToPath(line.slice(5)));
  expect(
    byNode.filter((file) => file.includes("/dist/")),
    "the bin loads the bundle only, through its own loader",
  ).toEqual([]);
  const chunks = lines
    .flatMap((line) => /^cubeform: load (\S+) \(code cache: \w+\)$/.exec(line)?.[1] ?? [])
    .map((name) => join(BUNDLE, name));
  expect(chunks.length, stderr).toBeGreaterThan(0);
  const bundled = chunks.flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^\/\/ ((?:node_modules|schema|client|engine|reconciler|emulator|provider)\/\S+)$/gm)].map(
      (m) => m[1]!,
    ),
  );
  return [...bundled, ...byNode.flatMap((file) => /\/(node_modules\/.*)$/.exec(file)?.[1] ?? [])];
}

/** Dependencies' files as the dependency's name. */
function byPackage(files: string[]): string[] {
  return [...new Set(files.map((path) => /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path))];
}

test("`cubeform --version` and `cubeform --help` load no command and none of yaml, zod, undici", () => {
  for (const args of [["--version"], ["--help"]]) {
    const loaded = modulesLoadedBy(args);
    expect(loaded, args.join(" ")).toContain("reconciler/main.ts");
    expect(loaded, args.join(" ")).toContain("commander");
    expect(
      loaded.filter((m) => /commands\/(?!index)|actions\/|client\/|engine\/|emulator\/|^(yaml|zod|undici)$/.test(m)),
      args.join(" "),
    ).toEqual([]);
  }
});

test("`cubeform validate` loads its own command only, nothing that talks HTTP, and zod's core without zod classic", () => {
  const files = filesLoadedBy(["validate", "-f", FLEET_YAML]);
  const loaded = byPackage(files);
  expect(loaded).toContain("reconciler/commands/validate.ts");
  expect(loaded).toContain("reconciler/actions/validate.ts");
  expect(loaded).toContain("zod");
  expect(loaded.filter((m) => /commands\/(?!index|validate|options)|client\/|emulator\/|^undici$/.test(m))).toEqual([]);
  // The engine by its light door (engine/light.ts), not index.ts: no observe, diff, executors.
  expect(loaded).toContain("engine/light.ts");
  expect(loaded.filter((m) => /engine\/(index|observe|diff|execute|apply)\.ts$/.test(m))).toEqual([]);
  // The git machinery only with --repo (reconciler/session/repo-loader.ts).
  expect(loaded.filter((m) => /git-source|repo-load/.test(m))).toEqual([]);
  // The file's and the options' schemas are zod/mini (schema/zod-english.ts): zod classic is ~20 % of the start-up.
  expect(files.filter((f) => f.startsWith("node_modules/zod/v4/core/"))).not.toEqual([]);
  expect(files.filter((f) => f.startsWith("node_modules/zod/v4/classic/"))).toEqual([]);
});

test("`cubeform plan` checks the answers it reads (pages, domains, TCP mappings, prices) without zod classic", async () => {
  const emulator = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 1000, windowMs: 60_000 } });
  try {
    const env = { CUBE_API_URL: emulator.url, CUBE_API_KEY: emulator.apiKey, CUBE_SPACE_ID: emulator.spaceId };
    const files = await filesLoadedByPlan(["-f", FLEET_YAML, "--format", "json"], env);
    expect(byPackage(files)).toContain("client/fast-check.ts");
    // zod classic and every API schema (client/response-schemas.ts) are ~15 % of a 10,000-cube --target plan.
    expect(files.filter((f) => f.startsWith("node_modules/zod/v4/classic/") || f === "client/response-schemas.ts")).toEqual([]);
    // The client by its light door (client/light.ts): not the archive download nor the device login.
    expect(files.filter((f) => /^client\/(index|download|download-part|device-login)\.ts$/.test(f))).toEqual([]);
  } finally {
    await emulator.close();
  }
});

test("`cubeform plan` against an http:// API loads neither node:http2 nor node:tls (~5 ms of every command that connects: build/cli-bundle.mjs)", async () => {
  const emulator = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 1000, windowMs: 60_000 } });
  try {
    const env = { ...testCacheHome(), CUBE_API_URL: emulator.url, CUBE_API_KEY: emulator.apiKey, CUBE_SPACE_ID: emulator.spaceId };
    const run = await promisify(execFile)(process.execPath, ["-r", LOG_BUILTINS, BIN, "plan", "-f", FLEET_YAML], {
      encoding: "utf8",
      env,
    }).catch((e: { code?: number; stderr: string }) => {
      if (e.code === 2) return e;
      throw new Error(`plan failed: ${e.stderr}`);
    });
    const builtins = run.stderr.split("\n").flatMap((line) => /^BUILTIN (.*)$/.exec(line)?.[1] ?? []);
    expect(builtins).toContain("http");
    expect(builtins.filter((name) => /^(http2|tls|_tls_wrap)$/.test(name))).toEqual([]);
  } finally {
    await emulator.close();
  }
});

test("undici's client-h2 gets node:http2's own constants from the stand-in, and node:http2 itself when it connects", () => {
  const clientH2 = readFileSync(fileURLToPath(new URL("../../node_modules/undici/lib/dispatcher/client-h2.js", import.meta.url)), "utf8");
  const module = { exports: {} as { constants: Record<string, unknown>; connect: (...args: unknown[]) => unknown } };
  const required: string[] = [];
  new Function("module", "require", http2StandIn(clientH2))(
    module,
    (name: string) => (required.push(name), { connect: () => "connected" }),
  );
  expect(Object.keys(module.exports.constants)).toContain("HTTP2_HEADER_AUTHORITY");
  for (const [name, value] of Object.entries(module.exports.constants))
    expect(value, name).toBe((http2.constants as Record<string, unknown>)[name]);
  expect(required).toEqual([]);
  expect(module.exports.connect("https://example.test")).toBe("connected");
  expect(required).toEqual(["node:http2"]);
  expect(() => http2StandIn(clientH2.replace(/\} = http2\b/, "} = http2Module"))).toThrow(/no longer reads node:http2's constants/);
});

test("`cubeform validate` loads none of Node's crypto and fs/promises (with readline): ~5 ms of its start-up (system/builtins.ts)", () => {
  const run = spawnSync(process.execPath, ["-r", LOG_BUILTINS, BIN, "validate", "-f", FLEET_YAML], {
    encoding: "utf8",
    env: testCacheHome(),
  });
  expect(run.status, run.stderr).toBe(0);
  const builtins = run.stderr.split("\n").flatMap((line) => /^BUILTIN (.*)$/.exec(line)?.[1] ?? []);
  expect(builtins).toContain("vm");
  expect(builtins.filter((name) => /^(crypto|fs\/promises|readline)$|^internal\/crypto\//.test(name))).toEqual([]);
});

test("every entry of the command list registers the command it names, with the summary --help shows", async () => {
  for (const entry of COMMANDS) {
    const program = new Command("cubeform");
    (await entry.load()).register(program, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: {} });
    expect(
      program.commands.map((c) => c.name()),
      entry.name,
    ).toEqual([entry.name]);
    expect(program.commands[0]!.description(), entry.name).toBe(entry.summary);
  }
  expect([...COMMANDS.map((c) => c.name)].sort()).toEqual(COMMANDS.map((c) => c.name));
  expect([...GRACEFUL_STOP_COMMANDS].sort()).toEqual(["apply", "demo", "dns", "emulator", "login", "preview", "upload", "watch"]);
});

test("--help lists every command with its arguments; a mistyped one gets a suggestion", async () => {
  const cwd = tempProject();
  const help = await runCli(["--help"], { cwd });
  expect(help.exitCode).toBe(0);
  expect(help.stdout).toMatch(/^ {2}apply \[options\] \[plan\] +make the space match the file/m);
  expect(help.stdout).toMatch(/^ {2}dns \[options\] <cube> \[domain\] +show the DNS records/m);
  expect(help.stdout).toMatch(/^ {2}demo +apply examples\/fleet\.yaml/m);
  for (const entry of COMMANDS.filter((c) => !c.hidden)) expect(help.stdout).toMatch(new RegExp(`^  ${entry.name}\\b`, "m"));
  expect(help.stdout).not.toContain("__complete");
  const commandHelp = await runCli(["help", "plan"], { cwd });
  expect(commandHelp.stdout).toMatch(/^Usage: cubeform plan \[options\]/);
  expect(commandHelp.stdout).toContain("--target <name>");
  const flat = commandHelp.stdout.replace(/\s+/g, " ");
  expect(flat).toContain("repeatable (default: cubeform.yaml)");
  expect(flat).toContain("(repeatable) (default: every cube)");
  expect(flat).not.toContain("(default: [])");
  const typo = await runCli(["plna"], { cwd });
  expect(typo.exitCode).toBe(1);
  expect(typo.stderr).toContain("(Did you mean plan?)");
});
