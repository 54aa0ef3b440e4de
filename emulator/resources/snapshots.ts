/** Snapshots and restore; allowed while termination protection is on (spec §3 rule 2). */
import { CreateSnapshotRequest, RestoreRequest } from "../../schema/api.js";
import { DELAYS } from "../core/clock.js";
import type { RouteContext } from "../core/context.js";
import { badRequest, conflict, json, parseWith, SUCCESS, type ApiResponse } from "../core/http.js";
import { isoAt, newId } from "../core/ids.js";
import { listOf, single, SUCCESS_SCHEMA } from "../core/openapi-doc.js";
import { defineJob, taggedRoutes, type Resource } from "../core/resource.js";
import type { SnapshotRecord } from "../core/state.js";
import { CUBE_PATH, requireCube, requireLiveCube } from "./cube-lookup.js";
import { snapshotView } from "./views.js";

export function listSnapshots(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  return json(200, { snapshots: ctx.core.index.snapshots.ofCube(cube.id).map(snapshotView) });
}

export function createSnapshot(ctx: RouteContext): ApiResponse {
  const body = parseWith(CreateSnapshotRequest, ctx.body ?? {});
  const cube = requireLiveCube(ctx);
  if (ctx.core.index.snapshots.ofCube(cube.id).some((s) => s.status === "pending"))
    throw conflict("A snapshot of this Cube is already in progress");
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
  snapshotCompleteJob.schedule(ctx.core, { snapshotId: snapshot.id }, ctx.now + DELAYS.snapshot);
  return json(201, { snapshot: snapshotView(snapshot) });
}

const snapshotCompleteJob = defineJob<{ snapshotId: string }>("snapshot-complete", (core, job) => {
  const snapshot = core.index.snapshots.get(job.snapshotId);
  const cube = snapshot && core.index.cubes.get(snapshot.cubeId);
  if (!snapshot || !cube) return;
  snapshot.status = "complete";
  snapshot.sizeBytes = Math.round(cube.resources.diskGb * 0.25 * 1024 ** 3);
  core.events.emit(snapshot.spaceId, "snapshot.created", { snapshot: snapshotView(snapshot) }, job.at);
});

export function deleteSnapshot(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  const snapshot = ctx.core.index.snapshots.requireOf(cube.id, ctx.params.snapshotId, "Snapshot");
  ctx.core.index.snapshots.delete(snapshot);
  ctx.core.events.emit(cube.spaceId, "snapshot.deleted", { snapshot: snapshotView(snapshot) }, ctx.now);
  return json(200, SUCCESS);
}

export function restoreSnapshot(ctx: RouteContext): ApiResponse {
  const body = parseWith(RestoreRequest, ctx.body);
  const cube = requireLiveCube(ctx);
  const snapshot = ctx.core.index.snapshots.get(body.snapshotId);
  if (!snapshot || snapshot.cubeId !== cube.id) throw badRequest(`snapshotId: no snapshot ${body.snapshotId} on this Cube`);
  if (snapshot.status !== "complete") throw conflict("The snapshot is not complete yet");
  ctx.core.events.emit(cube.spaceId, "snapshot.restored", { snapshot: snapshotView(snapshot), cubeId: cube.id }, ctx.now);
  return json(200, SUCCESS);
}

const SNAPSHOTS = `${CUBE_PATH}/snapshots`;

export const snapshotsResource: Resource = {
  routes: taggedRoutes("Snapshots", [
    [["GET", SNAPSHOTS, listSnapshots], "List snapshots of a Cube", [200, listOf("snapshots", "Snapshot")], [404]],
    [
      ["POST", SNAPSHOTS, createSnapshot],
      "Create a snapshot",
      [201, single("snapshot", "Snapshot")],
      [400, 404, 409],
      { body: CreateSnapshotRequest, bodyOptional: true },
    ],
    [["DELETE", `${SNAPSHOTS}/{snapshotId}`, deleteSnapshot], "Delete a snapshot", [200, SUCCESS_SCHEMA], [404]],
    [
      ["POST", `${CUBE_PATH}/restore`, restoreSnapshot],
      "Restore a Cube from a snapshot",
      [200, SUCCESS_SCHEMA],
      [400, 404, 409],
      { body: RestoreRequest },
    ],
  ]),
  jobs: [snapshotCompleteJob],
};
