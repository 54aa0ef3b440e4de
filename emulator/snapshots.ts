/** Snapshots and restore; allowed while termination protection is on (spec §3 rule 2). */
import { CreateSnapshotRequest, RestoreRequest } from "../schema/api.js";
import { DELAYS } from "./clock.js";
import type { RouteContext } from "./context.js";
import type { Core } from "./core.js";
import { requireCube } from "./cubes.js";
import { emitEvent } from "./deliveries.js";
import { badRequest, conflict, json, notFound, parseWith, SUCCESS, type ApiResponse } from "./http.js";
import { isoAt, newId } from "./ids.js";
import type { CubeRecord, Job, SnapshotRecord } from "./state.js";
import { snapshotView } from "./views.js";

function cubeSnapshots(core: Core, cube: CubeRecord): SnapshotRecord[] {
  return core.index.snapshots.ofCube(cube.id);
}

function requireSnapshot(core: Core, cube: CubeRecord, id: string): SnapshotRecord {
  const snapshot = core.index.snapshots.get(id);
  if (!snapshot || snapshot.cubeId !== cube.id) throw notFound("Snapshot");
  return snapshot;
}

export function listSnapshots(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  return json(200, { snapshots: cubeSnapshots(ctx.core, cube).map(snapshotView) });
}

export function createSnapshot(ctx: RouteContext): ApiResponse {
  const body = parseWith(CreateSnapshotRequest, ctx.body ?? {});
  const cube = requireCube(ctx);
  if (cube.deleting) throw conflict("This Cube is being deleted");
  if (cubeSnapshots(ctx.core, cube).some((s) => s.status === "pending")) {
    throw conflict("A snapshot of this Cube is already in progress");
  }
  const snapshot: SnapshotRecord = {
    id: newId("snap"),
    spaceId: cube.spaceId,
    cubeId: cube.id,
    name: body.name ?? `${cube.name}-${isoAt(ctx.now).replace(/[:.]/g, "-")}`,
    sizeBytes: null,
    status: "pending",
    kind: "manual",
    createdAt: isoAt(ctx.now),
  };
  ctx.core.index.snapshots.put(snapshot);
  ctx.core.scheduler.schedule({ kind: "snapshot-complete", snapshotId: snapshot.id }, ctx.now + DELAYS.snapshot);
  return json(201, { snapshot: snapshotView(snapshot) });
}

export function runSnapshotJob(core: Core, job: Extract<Job, { kind: "snapshot-complete" }>): void {
  const snapshot = core.index.snapshots.get(job.snapshotId);
  const cube = snapshot && core.index.cubes.get(snapshot.cubeId);
  if (!snapshot || !cube) return;
  snapshot.status = "complete";
  snapshot.sizeBytes = Math.round(cube.resources.diskGb * 0.25 * 1024 ** 3);
  emitEvent(core, snapshot.spaceId, "snapshot.created", { snapshot: snapshotView(snapshot) }, job.at);
}

export function deleteSnapshot(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  const snapshot = requireSnapshot(ctx.core, cube, ctx.params.snapshotId ?? "");
  ctx.core.index.snapshots.delete(snapshot);
  emitEvent(ctx.core, cube.spaceId, "snapshot.deleted", { snapshot: snapshotView(snapshot) }, ctx.now);
  return json(200, SUCCESS);
}

export function restoreSnapshot(ctx: RouteContext): ApiResponse {
  const body = parseWith(RestoreRequest, ctx.body);
  const cube = requireCube(ctx);
  if (cube.deleting) throw conflict("This Cube is being deleted");
  const snapshot = ctx.core.index.snapshots.get(body.snapshotId);
  if (!snapshot || snapshot.cubeId !== cube.id) throw badRequest(`snapshotId: no snapshot ${body.snapshotId} on this Cube`);
  if (snapshot.status !== "complete") throw conflict("The snapshot is not complete yet");
  emitEvent(ctx.core, cube.spaceId, "snapshot.restored", { snapshot: snapshotView(snapshot), cubeId: cube.id }, ctx.now);
  return json(200, SUCCESS);
}
