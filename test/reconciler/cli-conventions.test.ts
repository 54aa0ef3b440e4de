/**
 * What people expect of a CLI of this kind (issue 22 items 10-12): every leaf command's --help
 * ends with examples, `-o FORMAT` is the short form of `--format`, `cube list -o wide`,
 * `cubeform version`, and shell completion generated from the command tree.
 */
import { execFile, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { describe, expect } from "vitest";
import { buildProgram, VERSION } from "../../reconciler/main.js";
import { runCli, tempProject } from "./support/cli.js";
import { runningCube } from "./support/cubes.js";
import { FAST, test } from "./support/fixtures.js";

const quietIo = { stdout: process.stdout, stderr: process.stderr, env: {} };

/** Every command that has no subcommands, as the words that invoke it. */
async function leafCommands(): Promise<string[][]> {
  const root = await buildProgram(quietIo, ["completion"]);
  const leaves: string[][] = [];
  const visit = (command: Command, path: string[]): void => {
    if (command.commands.length === 0) leaves.push(path);
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  for (const top of root.commands) visit(top, [top.name()]);
  return leaves;
}

describe("help", () => {
  test("every leaf command's --help ends with examples of that command", async () => {
    const leaves = await leafCommands();
    expect(leaves.length).toBeGreaterThan(30);
    const cwd = tempProject();
    const missing: string[] = [];
    for (const path of leaves) {
      const help = (await runCli([...path, "--help"], { cwd, env: {} })).stdout;
      const examples = /\nExamples:\n((?: {2}\$ .*\n)+)/.exec(help)?.[1] ?? "";
      if (!new RegExp(`\\bcubeform ${path.join(" ")}(?![\\w-])`).test(examples)) missing.push(path.join(" "));
    }
    expect(missing, "leaf commands whose --help shows no example of themselves").toEqual([]);
  });
});

describe("-o, version", () => {
  test("every command with --format also takes -o for it, and -o means nothing else anywhere (issue 31 item 15)", async () => {
    const root = await buildProgram(quietIo, ["completion"]);
    const withoutShort: string[] = [];
    const visit = (command: Command, path: string[]): void => {
      const format = command.options.find((o) => o.long === "--format");
      const dashO = command.options.find((o) => o.short === "-o");
      if (format && dashO === undefined) withoutShort.push(path.join(" "));
      if (dashO !== undefined) expect(dashO.long, path.join(" ")).toBe("--format");
      for (const sub of command.commands) visit(sub, [...path, sub.name()]);
    };
    visit(root, []);
    expect(withoutShort).toEqual([]);
  });

  test("cube list -o json and -o wide", async ({ fx }) => {
    const web = await runningCube(fx, "web", { terminationProtection: true });
    const json = await fx.cli(["cube", "list", "-o", "json", ...FAST]);
    expect(JSON.parse(json.stdout)).toMatchObject([{ id: web.id, name: "web" }]);
    const plain = await fx.cli(["cube", "list", ...FAST]);
    expect(plain.stdout).toMatch(/^NAME +ID +STATE +IMAGE +SIZE +REGION +IPV4 +PROTECTED$/m);
    expect(plain.stdout).toMatch(/^web .* yes$/m);
    const wide = await fx.cli(["cube", "list", "-o", "wide", ...FAST]);
    expect(wide.exitCode, wide.stderr).toBe(0);
    expect(wide.stdout).toMatch(/^NAME +ID +STATE +IMAGE +SIZE +REGION +IPV4 +PROTECTED +SSH USER +SERVER DOMAIN +COST\/HOUR +CREATED$/m);
    expect(wide.stdout).toMatch(new RegExp(`^web +${web.id} .* yes +ubuntu +\\S+ +\\S+ +\\d{4}-\\d\\d-\\d\\dT`, "m"));
    const bad = await fx.cli(["snapshot", "list", "web", "-o", "wide", ...FAST]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/argument 'wide' is invalid. Allowed choices are text, json/);
  });

  test("cubeform version prints what --version prints", async () => {
    const cwd = tempProject();
    const version = await runCli(["version"], { cwd });
    const flag = await runCli(["--version"], { cwd });
    expect(version).toEqual({ exitCode: 0, stdout: `${VERSION}\n`, stderr: "" });
    expect(flag.stdout).toBe(version.stdout);
  });
});

describe("completion", () => {
  /** What bash offers after `words` (the last one being completed), with the generated script loaded. */
  function bashOffers(script: string, words: string[]): string[] {
    const dir = tempProject();
    writeFileSync(join(dir, "cubeform.bash"), script);
    const program = `source ./cubeform.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _cubeform; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const run = spawnSync("bash", ["--norc", "--noprofile", "-c", program], { cwd: dir, encoding: "utf8" });
    expect(run.stderr).toBe("");
    return run.stdout.split("\n").filter(Boolean).sort();
  }

  test("bash: subcommands, nested subcommands, flags and --format's values", async () => {
    const cwd = tempProject();
    const run = await runCli(["completion", "bash"], { cwd });
    expect(run.exitCode).toBe(0);
    expect(run.stdout.split("\n")[0]).toBe("# bash completion for cubeform (generated by `cubeform completion bash`)");
    expect(bashOffers(run.stdout, ["cubeform", "c"])).toEqual(["completion", "cube"]);
    expect(bashOffers(run.stdout, ["cubeform", "cube", "po"])).toEqual(["power-off"]);
    expect(bashOffers(run.stdout, ["cubeform", "snapshot", "restore", "web", "--w"])).toEqual(["--wait"]);
    expect(bashOffers(run.stdout, ["cubeform", "plan", "--format", ""])).toEqual(["github", "json", "markdown", "text", "yaml"]);
    expect(bashOffers(run.stdout, ["cubeform", "cube", "list", "-o", "w"])).toEqual(["wide"]);
    // Issue 31 item 20: dns's and import's formats too (their values are checked by the command, not by commander).
    expect(bashOffers(run.stdout, ["cubeform", "dns", "web", "--format", ""])).toEqual(["json", "text", "yaml", "zone"]);
    expect(bashOffers(run.stdout, ["cubeform", "import", "--format", ""])).toEqual(["pulumi", "yaml"]);
    expect(bashOffers(run.stdout, ["cubeform", "version", "-o", ""])).toEqual(["json", "text", "yaml"]);
  });

  test("zsh and fish scripts cover the same tree; an unknown shell is one line", async () => {
    const cwd = tempProject();
    const zsh = (await runCli(["completion", "zsh"], { cwd })).stdout;
    expect(zsh.split("\n")[0]).toBe("#compdef cubeform");
    expect(zsh).toContain(`'snapshot') echo 'take list restore delete' ;;`);
    expect(
      spawnSync("bash", ["-n"], { input: zsh.replace(/\$\{\(@\)words\[2,CURRENT-1\]\}|\$\{=[^}]*\}|\$\{=\$\([^)]*\)\}/g, "x") }).status,
    ).toBe(0);
    const fish = (await runCli(["completion", "fish"], { cwd })).stdout;
    expect(fish).toContain(
      "complete -c cubeform -n '__fish_use_subcommand' -a 'apply' -d 'make the space match the file (or carry out a saved plan)'",
    );
    expect(fish).toContain(
      "complete -c cubeform -n '__fish_seen_subcommand_from cube; and not __fish_seen_subcommand_from list show restart power-off wake protect unprotect ssh' -a 'power-off'",
    );
    expect(fish).toContain(
      "complete -c cubeform -n '__fish_seen_subcommand_from plan' -l format -s o -xa 'text json markdown github yaml'",
    );
    const bad = await runCli(["completion", "tcsh"], { cwd });
    expect(bad).toEqual({ exitCode: 1, stdout: "", stderr: 'Error: no completion for shell "tcsh"; choose bash, zsh, fish\n' });
  });
});

describe("completion of live cube names (issue 31 item 20)", () => {
  const BIN = join(import.meta.dirname, "../../bin/cubeform.js");

  /** An executable `cubeform` that runs this checkout's bin, as a user's PATH would. */
  function cubeformOnDisk(): string {
    const file = join(tempProject(), "cubeform");
    writeFileSync(file, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, { mode: 0o755 });
    return file;
  }

  /** Run asynchronously: the emulator answers from this process, which must keep running meanwhile. */
  function run(file: string, args: string[], options: { cwd?: string; env: Record<string, string | undefined> }) {
    return new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile(file, args, { encoding: "utf8", ...options }, (error, stdout, stderr) =>
        resolve({ status: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  test("`cubeform __complete cubes` prints the live names, one a line; bash offers them after `cube ssh`", async ({ fx }) => {
    await runningCube(fx, "web");
    await runningCube(fx, "db-1");
    const names = await run(cubeformOnDisk(), ["__complete", "cubes"], { env: { PATH: process.env.PATH, ...fx.env } });
    expect(names).toEqual({ status: 0, stdout: "db-1\nweb\n", stderr: "" });
    expect(names.stdout + names.stderr).not.toContain(fx.env.CUBE_API_KEY);

    const bin = cubeformOnDisk();
    const script = (await runCli(["completion", "bash"], { cwd: tempProject() })).stdout;
    const dir = tempProject();
    writeFileSync(join(dir, "cubeform.bash"), script);
    const offers = async (words: string[]): Promise<string[]> => {
      const program = `source ./cubeform.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _cubeform; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const shell = await run("bash", ["--norc", "--noprofile", "-c", program], { cwd: dir, env: { PATH: process.env.PATH, ...fx.env } });
      expect(shell.stderr).toBe("");
      return shell.stdout.split("\n").filter(Boolean).sort();
    };
    expect(await offers([bin, "cube", "ssh", ""])).toEqual(["db-1", "web"]);
    expect(await offers([bin, "snapshot", "take", "w"])).toEqual(["web"]);
    expect(await offers([bin, "dns", "d"])).toEqual(["db-1"]);
    expect(await offers([bin, "cube", "ssh", "--i"])).toEqual(["--identity"]);
    // Only the cube argument: not dns's domain after it, nor ssh's command after --; flags and their values are skipped.
    expect(await offers([bin, "dns", "--format", "json", "w"])).toEqual(["web"]);
    expect(await offers([bin, "cube", "ssh", "--exec", "w"])).toEqual(["web"]);
    expect(await offers([bin, "dns", "web", "w"])).toEqual([]);
    expect(await offers([bin, "cube", "ssh", "web", "--exec", "--", "w"])).toEqual([]);
    // Neither --help nor the completion of commands shows the hidden command.
    expect(await offers([bin, "_"])).toEqual([]);
    expect((await runCli(["--help"], { cwd: dir })).stdout).not.toContain("__complete");
  }, 60_000);

  test("with no key, or the API down, it prints nothing, exits 0 and answers within its timeout", async () => {
    const bin = cubeformOnDisk();
    const home = tempProject();
    // A port nothing listens on (bound, then closed).
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    // A server that accepts and never answers: the timeout ends the wait.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const silentPort = (silent.address() as AddressInfo).port;
    try {
      for (const env of [
        { HOME: home, XDG_CONFIG_HOME: home },
        { HOME: home, CUBE_API_KEY: "kro_secret_for_test", CUBE_API_URL: `http://127.0.0.1:${port}/api/v1` },
        { HOME: home, CUBE_API_KEY: "kro_secret_for_test", CUBE_API_URL: `http://127.0.0.1:${silentPort}/api/v1` },
      ]) {
        const started = Date.now();
        const names = await run(bin, ["__complete", "cubes"], { env: { PATH: process.env.PATH, ...env } });
        expect(names, JSON.stringify(env.CUBE_API_URL)).toEqual({ status: 0, stdout: "", stderr: "" });
        // The 2 s timeout, plus the start of node on a loaded machine.
        expect(Date.now() - started).toBeLessThan(10_000);
      }
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);
});
