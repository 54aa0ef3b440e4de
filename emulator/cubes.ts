/** Cube routes (list, create, get, patch, delete) and the cube lifecycle. */
import { CreateCubeRequest, PatchCubeRequest } from "../schema/api.js";
import type { CubeState } from "../schema/api.js";
import { writeAudit } from "./audit.js";
import { findImage, findRegion, IMAGES, REGIONS } from "./catalog.js";
import { DELAYS } from "./clock.js";
import { actorOf, type RouteContext } from "./context.js";
import type { Core } from "./core.js";
import { emitEvent } from "./deliveries.js";
import { badRequest, HttpError, intQuery, json, notFound, parseWith, SUCCESS, type ApiResponse } from "./http.js";
import { isoAt, newId } from "./ids.js";
import type { CubeRecord, Job } from "./state.js";
import { createSshMapping } from "./tcp.js";
import { cubeView, publicIpv4 } from "./views.js";

export const TERMINATION_PROTECTED_MESSAGE = "This Cube has termination protection on. Turn it off before deleting.";

export function requireCube(ctx: RouteContext): CubeRecord {
  const cube = ctx.core.index.cubes.get(ctx.params.cubeId ?? "");
  // Another space's cube is reported exactly like a missing one: never visible, never touchable.
  if (!cube || cube.spaceId !== ctx.auth.spaceId) throw notFound("Cube");
  return cube;
}

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
  const image = findImage(body.image);
  if (!image) throw badRequest(`image: unknown image "${body.image}"; available: ${IMAGES.map((i) => i.id).join(", ")}`);
  const region = body.region === undefined ? REGIONS[0] : findRegion(body.region);
  if (!region) throw badRequest(`region: unknown region "${body.region}"; available: ${REGIONS.map((r) => r.slug).join(", ")}`);
  const at = isoAt(ctx.now);
  const cube = ctx.core.index.cubes.insert({
    id: newId("cube"),
    spaceId: ctx.auth.spaceId,
    name: body.name,
    state: "pending",
    image: image.id,
    sshUser: image.defaultUser,
    region: region.slug,
    resources: { ...body.resources },
    sshPublicKey: body.sshPublicKey,
    userData: body.userData ?? null,
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
  createSshMapping(ctx.core, cube, ctx.now);
  if (body.terminationProtection === true) setProtection(ctx, cube, true, "create");
  scheduleState(ctx.core, cube, "booting", ctx.now + DELAYS.pending);
  emitCubeEvent(ctx.core, cube, "cube.created", ctx.now);
  return json(201, { cube: cubeView(ctx.core.index, cube) });
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
    const cubeObject = cubeView(ctx.core.index, cube);
    throw new HttpError(409, TERMINATION_PROTECTED_MESSAGE, {
      error: { code: "termination_protected", message: TERMINATION_PROTECTED_MESSAGE, cube: cubeObject },
    });
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
  core.scheduler.schedule({ kind: "cube-gone", cubeId: cube.id }, now + DELAYS.deleting);
}

export function scheduleState(core: Core, cube: CubeRecord, to: CubeState, at: number): void {
  core.scheduler.schedule({ kind: "cube-state", cubeId: cube.id, epoch: cube.epoch, to }, at);
}

/** Applies a scheduled transition unless a later operation superseded it. */
export function runCubeStateJob(core: Core, job: Extract<Job, { kind: "cube-state" }>): void {
  const cube = core.index.cubes.get(job.cubeId);
  if (!cube || cube.deleting || cube.epoch !== job.epoch) return;
  enterState(core, cube, job.to, job.at);
  if (job.to === "booting") scheduleState(core, cube, "running", job.at + DELAYS.booting);
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
}

export function runCubeGoneJob(core: Core, job: Extract<Job, { kind: "cube-gone" }>): void {
  const cube = core.index.cubes.get(job.cubeId);
  if (cube) removeCube(core, cube, job.at);
}

/** Hard-deletes the cube and frees what it held: TCP mappings, domains, snapshots. */
export function removeCube(core: Core, cube: CubeRecord, at: number): void {
  const event = { id: cube.id, name: cube.name, state: "deleted", publicIpv4: publicIpv4(core.index, cube) };
  core.index.deleteCube(cube);
  emitEvent(core, cube.spaceId, "cube.deleted", event, at);
}

export function emitCubeEvent(core: Core, cube: CubeRecord, event: string, at: number): void {
  emitEvent(core, cube.spaceId, event, { id: cube.id, name: cube.name, state: cube.state, publicIpv4: publicIpv4(core.index, cube) }, at);
}
