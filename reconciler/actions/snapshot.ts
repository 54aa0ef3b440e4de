/** `cubeform snapshot take|list|restore|delete`: a cube's snapshots, by cube name or id. */
import type { CubeApi } from "../../client/api.js";
import { newIdempotencyKey } from "../../client/light.js";
import type { Cube, Snapshot } from "../../schema/api.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import { formatBytes } from "../render/progress.js";
import { formatDuration, sleep } from "../../system/time.js";
import { confirmDay2, findCube, orDash, pick, printJson, say, withApi, waitForState } from "../session/day2.js";
import type { Confirmable, Day2Context, WaitFlags } from "../session/day2.js";
import { table } from "../render/table.js";

export interface SnapshotContext extends Day2Context {
  cube: string;
}

async function findSnapshot(client: CubeApi, cube: Cube, ref: string): Promise<Snapshot> {
  return pick(await client.listSnapshots(cube.id), ref, "snapshot", `on cube "${cube.name}"`);
}

export async function runSnapshotList(ctx: SnapshotContext, io: CliIo): Promise<number> {
  const snapshots = await withApi(ctx, io, async (client) => client.listSnapshots((await findCube(client, ctx.cube)).id));
  if (ctx.format === "json") printJson(io, snapshots);
  else if (snapshots.length === 0) say(io, ctx, `No snapshots of cube "${ctx.cube}".`);
  else
    io.stdout.write(
      table(
        ["NAME", "ID", "STATUS", "SIZE", "KIND", "CREATED"],
        snapshots.map((s) => [s.name, s.id, s.status, s.sizeBytes == null ? "-" : formatBytes(s.sizeBytes), orDash(s.kind), s.createdAt]),
      ),
    );
  return 0;
}

export interface TakeContext extends SnapshotContext, WaitFlags {
  name?: string;
}

export async function runSnapshotTake(ctx: TakeContext, io: CliIo): Promise<number> {
  const snapshot = await withApi(ctx, io, async (client) => {
    const cube = await findCube(client, ctx.cube);
    if (ctx.name !== undefined) await refuseTakenName(client, cube, ctx.name);
    const taken = await client.createSnapshot(cube.id, ctx.name === undefined ? {} : { name: ctx.name }, {
      idempotencyKey: newIdempotencyKey(),
    });
    say(io, ctx, `Taking snapshot "${taken.name}" (${taken.id}) of cube "${cube.name}".`);
    return ctx.wait ? waitForComplete(client, cube, taken, ctx, io) : taken;
  });
  if (ctx.format === "json") printJson(io, { ...snapshot, changed: true });
  else if (ctx.wait)
    say(
      io,
      ctx,
      `Snapshot "${snapshot.name}" is complete (${snapshot.sizeBytes == null ? "size unknown" : formatBytes(snapshot.sizeBytes)}).`,
    );
  return 0;
}

/** `restore` and `delete` find a snapshot by name: a second one of that name would make them refuse both as ambiguous. */
async function refuseTakenName(client: CubeApi, cube: Cube, name: string): Promise<void> {
  const taken = (await client.listSnapshots(cube.id)).find((s) => s.name === name);
  if (taken === undefined) return;
  throw new CliError(
    "snapshot_name_taken",
    `cube "${cube.name}" already has a snapshot named "${name}" (${taken.id}, ${taken.status}, taken ${taken.createdAt}): no snapshot was taken; choose another --name, or delete that one first (cubeform snapshot delete ${cube.id} ${taken.id})`,
  );
}

async function waitForComplete(client: CubeApi, cube: Cube, snapshot: Snapshot, ctx: TakeContext, io: CliIo): Promise<Snapshot> {
  const deadline = Date.now() + ctx.timeoutMs;
  for (;;) {
    const now = (await client.listSnapshots(cube.id)).find((s) => s.id === snapshot.id);
    if (!now) throw new CliError("snapshot_gone", `snapshot ${snapshot.id} disappeared while waiting for it`);
    if (now.status === "complete") return now;
    if (io.signal?.aborted) throw new CliError("stopped", `stopped while waiting for snapshot "${snapshot.name}" (it is ${now.status})`);
    if (Date.now() >= deadline)
      throw new CliError("wait_timeout", `snapshot "${snapshot.name}" is still ${now.status} after ${formatDuration(ctx.timeoutMs)}`);
    writeLine(io.stderr, escapeText(`  ${snapshot.name}: ${now.status}`));
    await sleep(ctx.intervalMs, io.signal);
  }
}

export interface RestoreContext extends SnapshotContext, Confirmable, WaitFlags {
  snapshot: string;
}

/** Rewrites the cube's disk from a snapshot (after asking); --wait until the cube is back in the state it was in. */
export async function runSnapshotRestore(ctx: RestoreContext, io: CliIo): Promise<number> {
  const { cube, snapshot, after } = await withApi(ctx, io, async (client) => {
    const cube = await client.getCube((await findCube(client, ctx.cube)).id);
    const snapshot = await findSnapshot(client, cube, ctx.snapshot);
    if (snapshot.status !== "complete")
      throw new CliError("snapshot_not_complete", `snapshot "${snapshot.name}" is ${snapshot.status}; it can be restored once complete`);
    const protection = cube.terminationProtection ? " Termination protection does not prevent this." : "";
    await confirmDay2(
      ctx,
      io,
      `restore cube "${cube.name}" from snapshot "${snapshot.name}"`,
      `Restore cube "${cube.name}" from snapshot "${snapshot.name}" (${snapshot.createdAt})? Its disk is replaced: what was written since is lost.${protection}`,
    );
    await client.restoreSnapshot(cube.id, snapshot.id, { idempotencyKey: newIdempotencyKey() });
    if (ctx.format !== "json") say(io, ctx, `Restoring cube "${cube.name}" from snapshot "${snapshot.name}" (${snapshot.id}).`);
    const settled = cube.state === "stopped" ? "stopped" : "running";
    return { cube, snapshot, after: ctx.wait ? await waitForState(client, cube, settled, ctx, io) : undefined };
  });
  if (ctx.format === "json")
    printJson(io, {
      cubeId: cube.id,
      snapshotId: snapshot.id,
      result: after ? "restored" : "restoring",
      changed: true,
      ...(after ? { state: after.state } : {}),
    });
  else if (after) say(io, ctx, `Cube "${cube.name}" is ${after.state} again, restored from snapshot "${snapshot.name}".`);
  return 0;
}

export async function runSnapshotDelete(
  ctx: SnapshotContext & Confirmable & { snapshot: string; ignoreNotFound?: boolean },
  io: CliIo,
): Promise<number> {
  const found = await withApi(ctx, io, async (client) => {
    const cube = await findCube(client, ctx.cube);
    const snapshot = await findSnapshot(client, cube, ctx.snapshot);
    await confirmDay2(
      ctx,
      io,
      `delete snapshot "${snapshot.name}" of cube "${cube.name}"`,
      `Delete snapshot "${snapshot.name}" (${snapshot.id}) of cube "${cube.name}"? It cannot be undone.`,
    );
    await client.deleteSnapshot(cube.id, snapshot.id);
    return { cube, snapshot };
  }).catch((error: unknown) => {
    // kubectl's --ignore-not-found: the state asked for (no such snapshot) already holds.
    if (ctx.ignoreNotFound === true && error instanceof CliError && error.code.endsWith("_not_found")) return undefined;
    throw error;
  });
  if (found === undefined) {
    if (ctx.format === "json") printJson(io, { cube: ctx.cube, snapshot: ctx.snapshot, result: "not-found", changed: false });
    else say(io, ctx, `No snapshot "${ctx.snapshot}" of cube "${ctx.cube}": nothing to delete.`);
    return 0;
  }
  const { cube, snapshot } = found;
  if (ctx.format === "json") printJson(io, { cubeId: cube.id, snapshotId: snapshot.id, result: "deleted", changed: true });
  else say(io, ctx, `Deleted snapshot "${snapshot.name}" (${snapshot.id}) of cube "${cube.name}".`);
  return 0;
}
