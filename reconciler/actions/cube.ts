/**
 * `cubeform cube list|show|restart|power-off|wake|ssh`: the live cubes of the space and what a
 * person does with one day to day. Cubes are named by name or id (two with one name: an
 * error naming their ids, never a guess).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { CubeApi } from "../../client/api.js";
import type { Cube, CubeSshInfo, CubeState } from "../../schema/api.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { formatDuration, sleep } from "../../system/time.js";
import { shellCommand } from "../render/escape.js";
import { knownHostsLines, knownHostsPattern, sshAnswerProblem, sshArgs, sshCommandLine, sshTarget, type SshTarget } from "../ssh.js";
import { details, orDash, printJson, say, table, withApi, type Day2Context } from "./day2.js";
import { findCube } from "./dns.js";
import { userDir } from "../../system/dirs.js";
import { FileReadError, readRegularTextAsync, STATE_FILE, writeFileAtomic } from "../../system/files.js";

export { findCube };

export async function runCubeList(ctx: Day2Context, io: CliIo): Promise<number> {
  const cubes = (await withApi(ctx, io, (client) => client.listCubes())).filter((c) => c.state !== "deleted");
  if (ctx.format === "json") printJson(io, cubes);
  else if (cubes.length === 0) say(io, ctx, "No cubes in this space.");
  else {
    const rows = [...cubes]
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
      .map((c) => [c.name, c.id, c.state, c.image, `${c.resources.vcpu} vCPU / ${c.resources.ramGb} GB / ${c.resources.diskGb} GB`, orDash(c.region), orDash(c.publicIpv4), c.terminationProtection ? "protected" : ""]);
    io.stdout.write(table(["NAME", "ID", "STATE", "IMAGE", "SIZE", "REGION", "IPV4", ""], rows));
  }
  return 0;
}

export async function runCubeShow(ctx: Day2Context & { cube: string }, io: CliIo): Promise<number> {
  const { cube, ssh } = await withApi(ctx, io, async (client) => {
    const found = await client.getCube((await findCube(client, ctx.cube)).id);
    return { cube: found, ssh: await client.getSsh(found.id) };
  });
  if (ctx.format === "json") printJson(io, { ...cube, ssh });
  else {
    io.stdout.write(
      details([
        ["name", cube.name],
        ["id", cube.id],
        ["state", cube.state],
        ["image", cube.image],
        ["resources", `${cube.resources.vcpu} vCPU, ${cube.resources.ramGb} GB RAM, ${cube.resources.diskGb} GB disk`],
        ["region", orDash(cube.region)],
        ["public IPv4", orDash(cube.publicIpv4)],
        ["protection", cube.terminationProtection ? "on (cannot be deleted)" : "off"],
        ["ssh", sshShown(ssh, cube.name)],
        ["created", orDash(cube.createdAt)],
      ]),
    );
  }
  return 0;
}

function sshShown(ssh: CubeSshInfo, cubeName: string): string {
  if (!ssh.host) return "not reachable yet (no host assigned)";
  const problem = sshAnswerProblem(ssh);
  return problem === undefined ? sshCommandLine(sshTarget({ ...ssh, host: ssh.host }, cubeName)) : `not shown: the API's answer is not usable (${problem})`;
}

export type PowerAction = "restart" | "power-off" | "wake";

export interface PowerContext extends Day2Context {
  cube: string;
  action: PowerAction;
  wait: boolean;
  timeoutMs: number;
  intervalMs: number;
}

const SETTLES_IN: Record<PowerAction, CubeState> = { restart: "running", "power-off": "stopped", wake: "running" };
const DONE: Record<PowerAction, string> = { restart: "restarting", "power-off": "powering off", wake: "waking" };

export async function runCubePower(ctx: PowerContext, io: CliIo): Promise<number> {
  const cube = await withApi(ctx, io, async (client) => {
    const found = await findCube(client, ctx.cube);
    if (ctx.action === "restart") await client.restart(found.id);
    else if (ctx.action === "power-off") await client.powerOff(found.id);
    else await client.wake(found.id);
    say(io, ctx, `Cube "${found.name}" (${found.id}) is ${DONE[ctx.action]}.`);
    return ctx.wait ? waitForState(client, found, SETTLES_IN[ctx.action], ctx, io) : client.getCube(found.id);
  });
  if (ctx.format === "json") printJson(io, cube);
  else if (ctx.wait) say(io, ctx, `Cube "${cube.name}" is ${cube.state}.`);
  return 0;
}

/** Polls until the cube is in `state`; shows each state it passes through (on stderr). */
export async function waitForState(client: CubeApi, cube: Cube, state: CubeState, ctx: { timeoutMs: number; intervalMs: number }, io: CliIo): Promise<Cube> {
  const deadline = Date.now() + ctx.timeoutMs;
  let last = "";
  for (;;) {
    const now = await client.getCube(cube.id);
    if (now.state !== last) writeLine(io.stderr, `  ${cube.name}: ${now.state}`);
    last = now.state;
    if (now.state === state) return now;
    if (now.state === "error") throw new CliError("cube_error", `cube "${cube.name}" went into the error state while waiting for ${state}`);
    if (io.signal?.aborted) throw new CliError("stopped", `stopped while waiting for cube "${cube.name}" to be ${state} (it is ${now.state})`);
    if (Date.now() >= deadline) throw new CliError("wait_timeout", `cube "${cube.name}" is still ${now.state} after ${formatDuration(ctx.timeoutMs)}; it did not reach ${state}`);
    await sleep(ctx.intervalMs, io.signal);
  }
}

export interface SshContext extends Day2Context {
  cube: string;
  exec: boolean;
  identity?: string;
  /** Arguments after `--`: the remote command. */
  command: string[];
}

/** Prints the ssh command (or runs it with --exec), pinning the API's host key when it has one. */
export async function runCubeSsh(ctx: SshContext, io: CliIo): Promise<number> {
  const { cube, ssh } = await withApi(ctx, io, async (client) => {
    const found = await findCube(client, ctx.cube);
    return { cube: found, ssh: await client.getSsh(found.id) };
  });
  if (!ssh.host) throw new CliError("no_ssh_host", `cube "${cube.name}" has no host yet (it is ${cube.state}); try again once it is running`);
  const target = sshTarget({ ...ssh, host: ssh.host }, cube.name);
  const knownHosts = target.hostKeys.length > 0 ? await pinHostKeys(target, io) : undefined;
  const args = [...sshArgs(target, { knownHosts, identity: ctx.identity }), ...ctx.command];
  if (!ctx.exec) {
    if (ctx.format === "json") printJson(io, { cubeId: cube.id, ...target, knownHostsFile: knownHosts ?? null, command: ["ssh", ...args] });
    else writeLine(io.stdout, shellCommand(["ssh", ...args]));
    return 0;
  }
  return new Promise<number>((resolve, reject) => {
    const child = spawn("ssh", args, { stdio: "inherit" });
    child.on("error", (error) => reject(new CliError("ssh_failed", `could not run ssh: ${error.message}`)));
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

/** cubeform's own known_hosts ($XDG_CONFIG_HOME/cubeform/known_hosts): the API's keys for [host]:port. */
async function pinHostKeys(target: SshTarget, io: CliIo): Promise<string> {
  const file = join(userDir(io.env, "config"), "known_hosts");
  const hostPattern = knownHostsPattern(target);
  let lines: string[] = [];
  try {
    lines = (await readRegularTextAsync(file, STATE_FILE)).split("\n").filter((line) => line !== "" && !line.startsWith(`${hostPattern} `));
  } catch (error) {
    if (!(error instanceof FileReadError && error.refusal === "missing")) throw error;
  }
  lines.push(...knownHostsLines(target));
  await writeFileAtomic(file, `${lines.join("\n")}\n`);
  return file;
}
