/** TCP mappings, including the SSH mapping every cube has, SSH details and the SSH port. */
import { createHash } from "node:crypto";
import { CreateTcpMappingRequest, SshPortRequest, SshPortResponse } from "../../schema/api.js";
import { DELAYS } from "../core/clock.js";
import type { RouteContext } from "../core/context.js";
import type { Core } from "../core/core.js";
import { badRequest, conflict, HttpError, json, parseWith, SUCCESS, type ApiResponse } from "../core/http.js";
import { isoAt, newId } from "../core/ids.js";
import { listOf, ref, single, SUCCESS_SCHEMA } from "../core/openapi-doc.js";
import { defineJob, taggedRoutes, type Resource } from "../core/resource.js";
import type { CubeRecord, TcpRecord } from "../core/state.js";
import { CUBE_PATH, requireCube, requireLiveCube } from "./cube-lookup.js";
import { cubeHostname, tcpView } from "./views.js";

/** The host port comes from the pool of the cube's server: unique on that server. */
function addMapping(
  core: Core,
  cube: CubeRecord,
  now: number,
  fields: Pick<TcpRecord, "cubePort" | "label" | "isSsh" | "udpEnabled" | "whitelistedIps">,
): TcpRecord {
  const at = isoAt(now);
  const hostPort = core.index.servers.allocatePort(cube.server);
  const mapping: TcpRecord = {
    id: newId("tcp"),
    spaceId: cube.spaceId,
    cubeId: cube.id,
    hostPort,
    status: "active",
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
  core.index.tcp.put(mapping);
  return mapping;
}

export function createSshMapping(core: Core, cube: CubeRecord, now: number): TcpRecord {
  return addMapping(core, cube, now, { cubePort: 22, label: "SSH", isSsh: true, udpEnabled: false, whitelistedIps: [] });
}

export function listTcpMappings(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  return json(200, { tcpMappings: ctx.core.index.tcp.ofCube(cube.id).map((m) => tcpView(ctx.core.index, m)) });
}

export function createTcpMapping(ctx: RouteContext): ApiResponse {
  const body = parseWith(CreateTcpMappingRequest, ctx.body);
  const cube = requireLiveCube(ctx);
  if (ctx.core.index.tcp.ofCube(cube.id).some((m) => m.cubePort === body.cubePort))
    throw conflict(`Cube port ${body.cubePort} is already mapped on this Cube`);
  // whitelistIps is the deprecated alias; whitelistedIps wins when both are sent.
  const cidrs = body.whitelistedIps ?? body.whitelistIps ?? [];
  const mapping = addMapping(ctx.core, cube, ctx.now, {
    cubePort: body.cubePort,
    label: body.label ?? null,
    isSsh: false,
    udpEnabled: body.udpEnabled ?? true,
    whitelistedIps: cidrs.map((cidr) => ({ id: newId("wl"), cidr })),
  });
  ctx.core.events.emit(cube.spaceId, "tcp_mapping.added", { tcpMapping: tcpView(ctx.core.index, mapping) }, ctx.now);
  return json(201, { tcpMapping: tcpView(ctx.core.index, mapping) });
}

/** The SSH mapping is refused with 400: that request can never succeed, whatever the state. */
export function deleteTcpMapping(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  const mapping = ctx.core.index.tcp.requireOf(cube.id, ctx.params.mappingId, "TCP mapping");
  if (mapping.isSsh)
    throw badRequest("The SSH mapping cannot be deleted; change its port with PUT /spaces/{spaceId}/cubes/{cubeId}/ssh-port");
  const view = tcpView(ctx.core.index, mapping);
  ctx.core.index.tcp.delete(mapping);
  ctx.core.events.emit(cube.spaceId, "tcp_mapping.removed", { tcpMapping: view }, ctx.now);
  return json(200, SUCCESS);
}

function sshMapping(core: Core, cube: CubeRecord): TcpRecord {
  const mapping = core.index.tcp.ofCube(cube.id).find((m) => m.isSsh);
  if (!mapping) throw new HttpError(500, "SSH mapping missing");
  return mapping;
}

export function getSsh(ctx: RouteContext): ApiResponse {
  const cube = requireCube(ctx);
  return json(200, {
    host: cubeHostname(cube),
    port: sshMapping(ctx.core, cube).hostPort,
    user: cube.sshUser,
    hostKeys: cube.hostKeyCaptured ? [{ type: "ssh-ed25519", key: fakeHostKey(cube.id) }] : [],
  });
}

function fakeHostKey(cubeId: string): string {
  const digest = createHash("sha256").update(cubeId).digest();
  return Buffer.concat([Buffer.from("0000000b7373682d6564323535313900000020", "hex"), digest]).toString("base64");
}

/** Changes the in-cube port; the host port and whitelist stay. Status pending → active. */
export function putSshPort(ctx: RouteContext): ApiResponse {
  const body = parseWith(SshPortRequest, ctx.body);
  const cube = requireCube(ctx);
  const ssh = sshMapping(ctx.core, cube);
  if (ssh.status === "pending") throw conflict("Another SSH-port change is in progress");
  if (ctx.core.index.tcp.ofCube(cube.id).some((m) => !m.isSsh && m.cubePort === body.cubePort)) {
    throw conflict(`Cube port ${body.cubePort} is used by another TCP mapping of this Cube`);
  }
  if (ssh.cubePort !== body.cubePort) {
    ssh.cubePort = body.cubePort;
    ssh.status = "pending";
    ssh.updatedAt = isoAt(ctx.now);
    sshPortActiveJob.schedule(ctx.core, { mappingId: ssh.id }, ctx.now + DELAYS.sshPort);
    ctx.core.events.emit(cube.spaceId, "tcp_mapping.updated", { tcpMapping: tcpView(ctx.core.index, ssh) }, ctx.now);
  }
  return json(200, { success: true, cubePort: body.cubePort });
}

const sshPortActiveJob = defineJob<{ mappingId: string }>("ssh-port-active", (core, job) => {
  const mapping = core.index.tcp.get(job.mappingId);
  if (!mapping) return;
  mapping.status = "active";
  mapping.updatedAt = isoAt(job.at);
});

const MAPPINGS = `${CUBE_PATH}/tcp-mappings`;

export const tcpResource: Resource = {
  routes: [
    ...taggedRoutes("Cubes", [
      [["GET", `${CUBE_PATH}/ssh`, getSsh], "SSH connection info", [200, ref("CubeSshInfo")], [404]],
      [
        ["PUT", `${CUBE_PATH}/ssh-port`, putSshPort],
        "Change the in-Cube SSH port (host port unchanged)",
        [200, SshPortResponse],
        [400, 404, 409],
        { body: SshPortRequest },
      ],
    ]),
    ...taggedRoutes("TCP mappings", [
      [["GET", MAPPINGS, listTcpMappings], "List TCP mappings of a Cube", [200, listOf("tcpMappings", "TcpMapping")], [404]],
      [
        ["POST", MAPPINGS, createTcpMapping],
        "Create a TCP mapping",
        [201, single("tcpMapping", "TcpMapping")],
        [400, 404, 409, 503],
        { body: CreateTcpMappingRequest },
      ],
      [
        ["DELETE", `${MAPPINGS}/{mappingId}`, deleteTcpMapping],
        "Delete a TCP mapping (not the SSH mapping)",
        [200, SUCCESS_SCHEMA],
        [400, 404],
      ],
    ]),
  ],
  jobs: [sshPortActiveJob],
};
