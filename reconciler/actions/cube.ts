/** `cubeform cube list|show|restart|power-off|wake|protect|unprotect|ssh`: the live cubes of the space, by name or id (never a guess). */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { CubeApi } from "../../client/api.js";
import type { Cube, CubeSshInfo, CubeState } from "../../schema/api.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText, shellCommand } from "../render/escape.js";
import { knownHostsLines, knownHostsPattern, sshAnswerProblem, sshArgs, sshCommandLine, sshTarget, type SshTarget } from "../ssh.js";
import {
  confirmDay2,
  findCube,
  orDash,
  printJson,
  say,
  withApi,
  type Confirmable,
  type Day2Context,
  type WaitFlags,
  waitForState,
} from "../session/day2.js";
import { details, table } from "../render/table.js";
import { userDir } from "../../system/dirs.js";
import { FileReadError, readRegularTextAsync, STATE_FILE, writeFileAtomic } from "../../system/files.js";

/** `wide` (-o wide) adds the ssh user, server domain, hourly cost and creation time. */
export async function runCubeList(ctx: Day2Context & { wide?: boolean }, io: CliIo): Promise<number> {
  const cubes = (await withApi(ctx, io, (client) => client.listCubes())).filter((c) => c.state !== "deleted");
  if (ctx.format === "json") printJson(io, cubes);
  else if (cubes.length === 0) say(io, ctx, "No cubes in this space.");
  else {
    const sorted = [...cubes].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    const headers = ["NAME", "ID", "STATE", "IMAGE", "SIZE", "REGION", "IPV4", "PROTECTED", ...(ctx.wide ? WIDE_HEADERS : [])];
    io.stdout.write(
      table(
        headers,
        sorted.map((c) => [...listRow(c), ...(ctx.wide ? wideRow(c) : [])]),
      ),
    );
  }
  return 0;
}

function listRow(c: Cube): string[] {
  return [
    c.name,
    c.id,
    c.state,
    c.image,
    `${c.resources.vcpu} vCPU / ${c.resources.ramGb} GB / ${c.resources.diskGb} GB`,
    orDash(c.region),
    orDash(c.publicIpv4),
    c.terminationProtection ? "yes" : "no",
  ];
}

const WIDE_HEADERS = ["SSH USER", "SERVER DOMAIN", "COST/HOUR", "CREATED"];

function wideRow(c: Cube): string[] {
  return [c.sshUser, orDash(c.serverDomain), c.costPerHour === undefined ? "-" : String(c.costPerHour), orDash(c.createdAt)];
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
  return problem === undefined
    ? sshCommandLine(sshTarget({ ...ssh, host: ssh.host }, cubeName))
    : `not shown: the API's answer is not usable (${problem})`;
}

export type PowerAction = "restart" | "power-off" | "wake";

export interface PowerContext extends Day2Context, Confirmable, WaitFlags {
  cube: string;
  action: PowerAction;
}

const SETTLES_IN: Record<PowerAction, CubeState> = { restart: "running", "power-off": "stopped", wake: "running" };
const DONE: Record<PowerAction, string> = { restart: "restarting", "power-off": "powering off", wake: "waking" };
/** States in which the action's outcome already holds (or is under way): repeating it is success. */
const ALREADY: Record<PowerAction, readonly CubeState[]> = {
  restart: ["booting"],
  "power-off": ["stopped", "stopping"],
  wake: ["running", "booting"],
};

/** The request an action sends for a cube in `state` (none when its outcome holds); `restart` starts a stopped cube, as systemctl does. */
export function powerRequest(action: PowerAction, state: CubeState): PowerAction | undefined {
  if (ALREADY[action].includes(state)) return undefined;
  return action === "restart" && state === "stopped" ? "wake" : action;
}

export async function runCubePower(ctx: PowerContext, io: CliIo): Promise<number> {
  let changed = false;
  const cube = await withApi(ctx, io, async (client) => {
    const found = await client.getCube((await findCube(client, ctx.cube)).id);
    changed = await powerOnce(client, found, ctx, io).catch((e: unknown) => settledMeanwhile(client, found, ctx, io, e));
    return ctx.wait ? waitForState(client, found, SETTLES_IN[ctx.action], ctx, io) : client.getCube(found.id);
  });
  if (ctx.format === "json") printJson(io, { ...cube, changed });
  else if (ctx.wait) say(io, ctx, `Cube "${cube.name}" is ${cube.state}.`);
  return 0;
}

/** `cube protect|unprotect`: sends the PATCH only when the flag differs (the same value is a no-op that still counts as a mutation). */
export async function runCubeProtect(ctx: Day2Context & { cube: string; value: boolean }, io: CliIo): Promise<number> {
  const { cube, changed } = await withApi(ctx, io, async (client) => {
    const found = await client.getCube((await findCube(client, ctx.cube)).id);
    const changed = found.terminationProtection !== ctx.value;
    return { cube: changed ? await client.setTerminationProtection(found.id, ctx.value) : found, changed };
  });
  if (ctx.format === "json") printJson(io, { ...cube, changed });
  else say(io, ctx, `Cube "${cube.name}": termination protection is ${changed ? "now" : "already"} ${ctx.value ? "on" : "off"}.`);
  return 0;
}

/** Sends the power request the cube's state needs, if any; says whether one was sent. */
async function powerOnce(client: CubeApi, cube: Cube, ctx: PowerContext, io: CliIo): Promise<boolean> {
  const settled = await afterTransition(client, cube, ctx, io);
  const request = powerRequest(ctx.action, settled.state);
  if (request === undefined) say(io, ctx, `Cube "${settled.name}" is already ${settled.state}.`);
  else await sendPower(client, settled, request, ctx, io);
  return request !== undefined;
}

/** The state a cube in transition settles in: the API refuses (409) most power requests until it has. */
const SETTLES_FROM: Partial<Record<CubeState, CubeState>> = { stopping: "stopped", booting: "running", pending: "running" };
const DOING: Record<PowerAction, string> = { restart: "restarting it", "power-off": "powering it off", wake: "waking it" };
const REQUEST_NAMED: Record<PowerAction, string> = { restart: "a restart", "power-off": "a power-off", wake: "a wake" };
/** A transition lasts seconds: it is polled more often than a --wait. */
const TRANSITION_POLL_MS = 500;

/** The cube once its transition has ended (within --timeout), when the action needs a request; else the cube as it is. */
async function afterTransition(client: CubeApi, cube: Cube, ctx: PowerContext, io: CliIo): Promise<Cube> {
  const target = SETTLES_FROM[cube.state];
  if (target === undefined || powerRequest(ctx.action, cube.state) === undefined) return cube;
  say(io, ctx, `Cube "${cube.name}" is ${cube.state}: waiting for it to be ${target} before ${DOING[ctx.action]}.`);
  const waits = { timeoutMs: ctx.timeoutMs, intervalMs: Math.min(ctx.intervalMs, TRANSITION_POLL_MS) };
  return waitForState(client, cube, target, waits, io).catch((error: unknown) => {
    if (!(error instanceof CliError) || error.code !== "wait_timeout") throw error;
    const hint = `the API accepts ${REQUEST_NAMED[ctx.action]} only once it is ${target}: run the command again later, or give it a longer --timeout`;
    throw new CliError("wait_timeout", `${error.message}; ${hint}`);
  });
}

/**
 * A 409 because the cube changed state between our read and the request: success when the outcome now holds; after a
 * transition that began meanwhile, the request is sent once more.
 */
async function settledMeanwhile(client: CubeApi, cube: Cube, ctx: PowerContext, io: CliIo, error: unknown): Promise<boolean> {
  if ((error as { status?: unknown }).status !== 409) throw error;
  const now = await client.getCube(cube.id);
  if (powerRequest(ctx.action, now.state) === undefined) {
    say(io, ctx, `Cube "${now.name}" is already ${now.state}.`);
    return false;
  }
  if (SETTLES_FROM[now.state] === undefined) throw error;
  return powerOnce(client, now, ctx, io);
}

async function sendPower(client: CubeApi, cube: Cube, request: PowerAction, ctx: PowerContext, io: CliIo): Promise<void> {
  if (request === "power-off")
    await confirmDay2(
      ctx,
      io,
      `power off cube "${cube.name}"`,
      `Power off cube "${cube.name}" (${cube.state})? Its processes stop; the disk is kept.`,
    );
  if (request !== ctx.action) say(io, ctx, `Cube "${cube.name}" is ${cube.state}: waking it instead of restarting.`);
  if (request === "restart") await client.restart(cube.id);
  else if (request === "power-off") await client.powerOff(cube.id);
  else await client.wake(cube.id);
  say(io, ctx, `Cube "${cube.name}" (${cube.id}) is ${DONE[request]}.`);
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
  if (cube.state === "stopped" && ctx.exec)
    throw new CliError(
      "cube_stopped",
      `cube "${cube.name}" is stopped: ssh cannot reach it; start it with \`cubeform cube wake ${cube.name} --wait\``,
    );
  if (cube.state === "stopped")
    writeLine(
      io.stderr,
      escapeText(`Note: cube "${cube.name}" is stopped: this command connects once it runs (\`cubeform cube wake ${cube.name}\`).`),
    );
  if (!ssh.host)
    throw new CliError("no_ssh_host", `cube "${cube.name}" has no host yet (it is ${cube.state}); try again once it is running`);
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
  const text = await readRegularTextAsync(file, STATE_FILE).catch((error: unknown) => {
    if (error instanceof FileReadError && error.refusal === "missing") return "";
    throw error;
  });
  const lines = text.split("\n").filter((line) => line !== "" && !line.startsWith(`${hostPattern} `));
  await writeFileAtomic(file, `${[...lines, ...knownHostsLines(target)].join("\n")}\n`);
  return file;
}
