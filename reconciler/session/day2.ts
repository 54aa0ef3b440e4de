/** What the day-2 commands share: a connection without a desired-state file, finding things by name or id, text tables or JSON. */
import type { CubeApi } from "../../client/api.js";
import type { Cube, CubeState } from "../../schema/api.js";
import { formatDuration, sleep } from "../../system/time.js";
import type { Connection, RateLimit } from "./connect.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { confirm } from "../prompt.js";
import { withConnection } from "./session.js";
import { escapeText } from "../render/escape.js";
import { didYouMean } from "../../desired/index.js";

export interface Day2Context {
  emulator: boolean;
  rateLimit: RateLimit;
  cwd: string;
  format: "text" | "json";
}

export function withApi<T>(ctx: Day2Context, io: CliIo, body: (client: CubeApi, conn: Connection) => Promise<T>): Promise<T> {
  return withConnection({ ...ctx, files: [], format: "text" }, io, (conn) => body(conn.client, conn));
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One named thing among many, by exact name or id; two with that name are an error, never a guess. */
export function pick<T extends { id: string; name: string }>(items: T[], ref: string, kind: string, where: string): T {
  const byName = items.filter((item) => item.name === ref);
  if (byName.length > 1) {
    throw new CliError(
      `ambiguous_${kind}`,
      `${byName.length} ${kind}s are named "${ref}" (${byName.map((i) => i.id).join(", ")}); name one by its id`,
    );
  }
  const found = byName[0] ?? items.find((item) => item.id === ref);
  if (found === undefined)
    throw new CliError(
      `${kind}_not_found`,
      `no ${kind} named (or with id) "${ref}" ${where}${didYouMean(
        ref,
        items.map((item) => item.name),
      )}`,
    );
  return found;
}

/** A live cube by name or id (deleted ones left out). */
export async function findCube(client: CubeApi, ref: string): Promise<Cube> {
  return pick(
    (await client.listCubes()).filter((c) => c.state !== "deleted"),
    ref,
    "cube",
    "in this space",
  );
}

/** A command that destroys or replaces data: with --yes it goes ahead, else it asks (or refuses without a terminal). */
export type Confirmable = { yes: boolean };

/** `--wait`, `--timeout`, `--interval` (commands/options.ts addWaitOptions, parsed by arguments/options.ts waitOptionsOf). */
export type WaitFlags = { wait: boolean; timeoutMs: number; intervalMs: number };

/** Asks `question` before `doing` it, unless --yes; the question goes where `say` writes. */
export function confirmDay2(ctx: Day2Context & Confirmable, io: CliIo, doing: string, question: string): Promise<void> {
  if (ctx.yes) return Promise.resolve();
  const withoutTerminal = `refusing to ${doing} without confirmation: stdin is not a terminal; pass --yes`;
  return confirm({ question, what: doing, withoutTerminal }, io, ctx.format === "json" ? io.stderr : io.stdout);
}

export function say(io: CliIo, ctx: Day2Context, line: string): void {
  writeLine(ctx.format === "json" ? io.stderr : io.stdout, escapeText(line));
}

export function orDash(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === "" ? "-" : String(value);
}

/** Polls until the cube is in `state`; shows each state it passes through (on stderr). */
export async function waitForState(client: CubeApi, cube: Cube, state: CubeState, ctx: Omit<WaitFlags, "wait">, io: CliIo): Promise<Cube> {
  const deadline = Date.now() + ctx.timeoutMs;
  let last = "";
  for (;;) {
    const now = await client.getCube(cube.id);
    if (now.state !== last) writeLine(io.stderr, escapeText(`  ${cube.name}: ${now.state}`));
    last = now.state;
    if (now.state === state) return now;
    if (now.state === "error") throw new CliError("cube_error", `cube "${cube.name}" went into the error state while waiting for ${state}`);
    if (io.signal?.aborted)
      throw new CliError("stopped", `stopped while waiting for cube "${cube.name}" to be ${state} (it is ${now.state})`);
    if (Date.now() >= deadline)
      throw new CliError(
        "wait_timeout",
        `cube "${cube.name}" is still ${now.state} after ${formatDuration(ctx.timeoutMs)}; it did not reach ${state}`,
      );
    await sleep(ctx.intervalMs, io.signal);
  }
}
