/** Cubes: routes (list, create, get, patch, delete) and the cube lifecycle (state jobs). */
import { CreateCubeRequest, PatchCubeRequest } from "../../schema/api.js";
import type { CubeState, Image } from "../../schema/api.js";
import { writeAudit } from "../core/audit.js";
import { DELAYS } from "../core/clock.js";
import { actorOf, type RouteContext } from "../core/context.js";
import type { Core } from "../core/core.js";
import { HttpError, intQuery, json, parseWith, SUCCESS, type ApiResponse } from "../core/http.js";
import { isoAt, newId } from "../core/ids.js";
import { intQueryParam, object, ref, single, SUCCESS_SCHEMA } from "../core/openapi-doc.js";
import { defineJob, taggedRoutes, type Resource } from "../core/resource.js";
import type { CubeRecord } from "../core/state.js";
import { requireImage, requireRegion } from "./catalog.js";
import { CUBE_PATH, requireCube } from "./cube-lookup.js";
import { createSshMapping } from "./tcp.js";
import { cubeView, publicIpv4 } from "./views.js";

export const TERMINATION_PROTECTED_MESSAGE = "This Cube has termination protection on. Turn it off before deleting.";

export function listCubes(ctx: RouteContext): ApiResponse {
  const limit = intQuery(ctx.query, "limit", ctx.core.defaultPageSize, 1, 100);
  const page = intQuery(ctx.query, "page", 1, 1, Number.MAX_SAFE_INTEGER);
  const index = ctx.core.index;
  const total = index.cubes.count(ctx.auth.spaceId);
  const cubes = index.cubes.page(ctx.auth.spaceId, (page - 1) * limit, limit).map((cube) => cubeView(index, cube));
  return json(200, { cubes, pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } });
}

export function getCube(ctx: RouteContext): ApiResponse {
  return json(200, { cube: cubeView(ctx.core.index, requireCube(ctx), { serverDomain: true }) });
}

export function createCube(ctx: RouteContext): ApiResponse {
  const body = parseWith(CreateCubeRequest, ctx.body);
  const image = requireImage(body.image, "image");
  const region = requireRegion(body.region);
  const cube = insertCube(
    ctx.core,
    {
      spaceId: ctx.auth.spaceId,
      name: body.name,
      image,
      region: region.slug,
      resources: body.resources,
      sshPublicKey: body.sshPublicKey,
      userData: body.userData ?? null,
    },
    ctx.now,
  );
  if (body.terminationProtection === true) setProtection(ctx, cube, true, "create");
  launchCube(ctx.core, cube, ctx.now);
  return json(201, { cube: cubeView(ctx.core.index, cube) });
}

type NewCube = Pick<CubeRecord, "spaceId" | "name" | "region" | "resources" | "sshPublicKey" | "userData"> & { image: Image };

/** A new pending cube with its SSH mapping (launchCube then starts it). Also used by imports. */
export function insertCube(core: Core, input: NewCube, now: number): CubeRecord {
  const at = isoAt(now);
  const cube = core.index.cubes.insert({
    id: newId("cube"),
    spaceId: input.spaceId,
    name: input.name,
    state: "pending",
    image: input.image.id,
    sshUser: input.image.defaultUser,
    region: input.region,
    resources: { ...input.resources },
    sshPublicKey: input.sshPublicKey,
    userData: input.userData,
    terminationProtection: false,
    terminationProtectionChangedAt: null,
    terminationProtectionChangedBy: null,
    hasServer: false,
    hostKeyCaptured: false,
    deleting: false,
    restarting: false,
    epoch: 0,
    createdAt: at,
    updatedAt: at,
  });
  createSshMapping(core, cube, now);
  return cube;
}

/** pending → booting → running on the emulated clock; announces cube.created. */
export function launchCube(core: Core, cube: CubeRecord, now: number): void {
  scheduleState(core, cube, "booting", now + DELAYS.pending);
  emitCubeEvent(core, cube, "cube.created", now);
}

/** Spec §3 rule 3: sending the current value is a 200 no-op (no audit row, audit fields kept). */
export function patchCube(ctx: RouteContext): ApiResponse {
  const body = parseWith(PatchCubeRequest, ctx.body ?? {});
  const cube = requireCube(ctx);
  if (body.terminationProtection !== undefined && body.terminationProtection !== cube.terminationProtection) {
    setProtection(ctx, cube, body.terminationProtection, "patch");
  }
  return json(200, { cube: cubeView(ctx.core.index, cube) });
}

function setProtection(ctx: RouteContext, cube: CubeRecord, value: boolean, via: "create" | "patch"): void {
  const at = isoAt(ctx.now);
  cube.terminationProtection = value;
  cube.terminationProtectionChangedAt = at;
  cube.terminationProtectionChangedBy = actorOf(ctx);
  cube.updatedAt = at;
  writeAudit(ctx.core, {
    at,
    spaceId: cube.spaceId,
    category: "cube",
    action: value ? "termination_protection.enabled" : "termination_protection.disabled",
    actorType: "user",
    actorId: ctx.auth.keyId,
    targetId: cube.id,
    visibility: "customer",
    details: { terminationProtection: value, via },
  });
}

/** Spec §4 rule 1: DELETE reads the cube and refuses with the typed 409 while protected. */
export function deleteCube(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  if (cube.terminationProtection) {
    const error = { code: "termination_protected", message: TERMINATION_PROTECTED_MESSAGE, cube: cubeView(ctx.core.index, cube) };
    throw new HttpError(409, TERMINATION_PROTECTED_MESSAGE, { error });
  }
  if (!cube.deleting) beginDeletion(ctx.core, cube, ctx.now);
  return json(200, SUCCESS);
}

function beginDeletion(core: Core, cube: CubeRecord, now: number): void {
  cube.deleting = true;
  cube.restarting = false;
  cube.epoch++;
  cube.state = "stopping";
  cube.updatedAt = isoAt(now);
  cubeGoneJob.schedule(core, { cubeId: cube.id }, now + DELAYS.deleting);
}

/** Applies a scheduled transition unless a later operation superseded it. */
const cubeStateJob = defineJob<{ cubeId: string; epoch: number; to: CubeState }>("cube-state", (core, job) => {
  const cube = core.index.cubes.get(job.cubeId);
  if (!cube || cube.deleting || cube.epoch !== job.epoch) return;
  enterState(core, cube, job.to, job.at);
  if (job.to !== "booting") return;
  // An image the admin made faulty: its boot ends in error, or never ends.
  const fault = core.imageFaults.get(cube.image);
  if (fault !== "never-running") scheduleState(core, cube, fault === "error" ? "error" : "running", job.at + DELAYS.booting);
});

const cubeGoneJob = defineJob<{ cubeId: string }>("cube-gone", (core, job) => {
  const cube = core.index.cubes.get(job.cubeId);
  if (cube) removeCube(core, cube, job.at);
});

export function scheduleState(core: Core, cube: CubeRecord, to: CubeState, at: number): void {
  cubeStateJob.schedule(core, { cubeId: cube.id, epoch: cube.epoch, to }, at);
}

export function enterState(core: Core, cube: CubeRecord, state: CubeState, at: number): void {
  cube.state = state;
  cube.updatedAt = isoAt(at);
  if (state === "booting") cube.hasServer = true;
  if (state === "running") {
    cube.hostKeyCaptured = true;
    if (cube.restarting) emitCubeEvent(core, cube, "cube.cold_restarted", at);
    cube.restarting = false;
    emitCubeEvent(core, cube, "cube.running", at);
  }
  if (state === "stopped") emitCubeEvent(core, cube, "cube.stopped", at);
  if (state === "error") emitCubeEvent(core, cube, "cube.error", at);
}

/** Hard-deletes the cube and frees what it held: TCP mappings, domains, snapshots. */
export function removeCube(core: Core, cube: CubeRecord, at: number): void {
  const event = { id: cube.id, name: cube.name, state: "deleted", publicIpv4: publicIpv4(core.index, cube) };
  core.index.deleteCube(cube);
  core.events.emit(cube.spaceId, "cube.deleted", event, at);
}

export function emitCubeEvent(core: Core, cube: CubeRecord, event: string, at: number): void {
  core.events.emit(cube.spaceId, event, { id: cube.id, name: cube.name, state: cube.state, publicIpv4: publicIpv4(core.index, cube) }, at);
}

const ONE_CUBE = single("cube", "Cube");
const CUBE_PAGE = object({ cubes: { type: "array", items: ref("Cube") }, pagination: ref("Pagination") });
const PAGE_QUERY = [
  intQueryParam("page", 1, Number.MAX_SAFE_INTEGER, "Page number, from 1."),
  intQueryParam("limit", 1, 100, "Page size (default 20)."),
];

export const cubesResource: Resource = {
  routes: taggedRoutes("Cubes", [
    [["GET", "/spaces/{spaceId}/cubes", listCubes], "List Cubes in a Space", [200, CUBE_PAGE], [400], { query: PAGE_QUERY }],
    [["POST", "/spaces/{spaceId}/cubes", createCube], "Create a Cube", [201, ONE_CUBE], [400], { body: CreateCubeRequest }],
    [["GET", CUBE_PATH, getCube], "Get a Cube", [200, ONE_CUBE], [404]],
    [["PATCH", CUBE_PATH, patchCube], "Toggle termination protection", [200, ONE_CUBE], [400, 404], { body: PatchCubeRequest }],
    [["DELETE", CUBE_PATH, deleteCube], "Delete a Cube (asynchronous)", [200, SUCCESS_SCHEMA], [404, 409]],
  ]),
  jobs: [cubeStateJob, cubeGoneJob],
};
