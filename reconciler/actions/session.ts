/**
 * The steps plan, apply and drift share: load the file (before any connection), connect,
 * observe and diff. The connection is closed whatever happens.
 */
import { diff, observe, type DesiredState, type ObservedState, type Plan } from "../../engine/index.js";
import { connect, type Connection, type RateLimit } from "../connect.js";
import { LoadError } from "../errors.js";
import type { CliIo } from "../io.js";
import { loadDesiredState, type LoadedFile } from "../load.js";
import type { Format } from "../commands/options.js";
import { reportProblems } from "./validate.js";

export interface SessionContext {
  file: string;
  cwd: string;
  emulator: boolean;
  rateLimit: RateLimit;
  format: Format;
}

export interface PlanFlags {
  targets: string[];
  prune: boolean;
  allowReplace: boolean;
}

/** How many cubes are read at once while observing. */
export const OBSERVE_CONCURRENCY = 8;

export async function loadForSession(ctx: SessionContext, io: CliIo): Promise<LoadedFile> {
  try {
    return await loadDesiredState({ file: ctx.file, cwd: ctx.cwd, env: io.env });
  } catch (e) {
    if (e instanceof LoadError) reportProblems(e, ctx.format, io);
    throw e;
  }
}

export async function withConnection<T>(ctx: SessionContext, io: CliIo, body: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await connect({ emulator: ctx.emulator, rateLimit: ctx.rateLimit, cwd: ctx.cwd }, io);
  try {
    return await body(conn);
  } finally {
    await conn.close();
  }
}

export async function observeFor(conn: Connection, targets: string[]): Promise<ObservedState> {
  return observe(conn.client, { concurrency: OBSERVE_CONCURRENCY, ...(targets.length > 0 ? { cubeNames: targets } : {}) });
}

export async function computePlan(conn: Connection, desired: DesiredState, flags: PlanFlags, rateLimit: RateLimit): Promise<{ plan: Plan; observed: ObservedState }> {
  const observed = await observeFor(conn, flags.targets);
  const plan = diff(desired, observed, { prune: flags.prune, allowReplace: flags.allowReplace, targets: flags.targets, rateLimit });
  return { plan, observed };
}
