/**
 * .cube archive imports (reference "Imports"): initiate → PUT each part to its presigned URL (ETag) → complete with
 * every ETag and the config → a cube that boots like any other. Cancel only while uploading. Wrong ETags, missing
 * parts, a wrong size or an expired upload are refused with nothing created.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  CompleteImportRequest,
  CreateImportRequest,
  CubeImport,
  ImportCompleted,
  ImportStarted,
  SSH_KEY_PATTERN,
} from "../../schema/api.js";
import { pathRow, type RouteContext } from "../core/context.js";
import type { Core } from "../core/core.js";
import { badRequest, conflict, json, parseWith, SUCCESS, type ApiResponse } from "../core/http.js";
import { isoAt, newId, randomHex } from "../core/ids.js";
import { rowOf } from "../core/indexes.js";
import { ref, single, SUCCESS_SCHEMA } from "../core/openapi-doc.js";
import { refuseStorage, taggedRoutes, type Resource } from "../core/resource.js";
import type { ImportRecord } from "../core/state.js";
import { REGIONS, requireImage, requireRegion } from "./catalog.js";
import { insertCube, launchCube } from "./cubes.js";

export const MIB = 1024 * 1024;
/** Parts of 1 MiB up to 32 MiB archives, 16 MiB beyond (at most 10,000 parts, as S3 allows). */
export function chunkSizeFor(fileSizeBytes: number): number {
  const base = fileSizeBytes <= 32 * MIB ? MIB : 16 * MIB;
  return Math.max(base, Math.ceil(fileSizeBytes / 10_000 / MIB) * MIB);
}
export const UPLOAD_TTL_MS = 6 * 3600 * 1000;
const IMPORTS = "/spaces/{spaceId}/cubes/imports";
const IMPORT = `${IMPORTS}/{importId}`;

function importView(core: Core, imp: ImportRecord): CubeImport {
  settle(core, imp);
  return {
    id: imp.id,
    name: imp.name,
    status: imp.status,
    cubeId: imp.cubeId,
    error: imp.error,
    createdAt: imp.createdAt,
    updatedAt: imp.updatedAt,
    completedAt: imp.completedAt,
  };
}

/** provisioning → complete once its cube runs; uploading → expired after the upload window. */
function settle(core: Core, imp: ImportRecord): void {
  const now = core.now();
  if (imp.status === "provisioning" && imp.cubeId) {
    const cube = core.index.cubes.get(imp.cubeId);
    if (cube?.state === "running") Object.assign(imp, { status: "complete", completedAt: isoAt(now), updatedAt: isoAt(now) });
    else if (!cube || cube.state === "error")
      Object.assign(imp, { status: "failed", error: "The imported cube did not boot", updatedAt: isoAt(now) });
  }
  if (imp.status === "uploading" && now > imp.expiresAtMs) Object.assign(imp, { status: "expired", parts: {}, updatedAt: isoAt(now) });
}

function requireImport(ctx: RouteContext): ImportRecord {
  const imp = pathRow(ctx, ctx.core.data.imports, "importId", "Import");
  settle(ctx.core, imp);
  return imp;
}

function startImport(ctx: RouteContext): ApiResponse {
  const body = parseWith(CreateImportRequest, ctx.body);
  if (body.sshKeyMode === "replace") {
    if (!body.sshPublicKey)
      throw badRequest("sshPublicKey is required when sshKeyMode is replace (the default); send one, or sshKeyMode keep");
    if (!SSH_KEY_PATTERN.test(body.sshPublicKey.trim())) throw badRequest("sshPublicKey: not an OpenSSH public key (ssh-ed25519 AAAA…)");
  }
  const region = requireRegion(body.region);
  const chunkSizeBytes = chunkSizeFor(body.fileSizeBytes);
  const at = isoAt(ctx.now);
  const imp: ImportRecord = {
    id: newId("imp"),
    spaceId: ctx.auth.spaceId,
    name: body.name,
    status: "uploading",
    fileSizeBytes: body.fileSizeBytes,
    chunkSizeBytes,
    partCount: Math.ceil(body.fileSizeBytes / chunkSizeBytes),
    parts: {},
    sshKeyMode: body.sshKeyMode,
    sshPublicKey: body.sshKeyMode === "replace" ? (body.sshPublicKey ?? null) : null,
    region: region.slug,
    userData: body.userData ?? null,
    cubeId: null,
    error: null,
    expiresAtMs: ctx.now + UPLOAD_TTL_MS,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
  };
  ctx.core.data.imports[imp.id] = imp;
  const parts = Array.from({ length: imp.partCount }, (_, i) => ({
    partNumber: i + 1,
    url: ctx.core.presigner.url(ctx.origin, `/imports/${imp.id}/parts/${i + 1}`, imp.expiresAtMs),
  }));
  return json(201, {
    importId: imp.id,
    uploadId: randomHex(16),
    key: `imports/${imp.spaceId}/${imp.id}.cube`,
    chunkSizeBytes,
    parts,
    expiresAt: isoAt(imp.expiresAtMs),
  });
}

function getImport(ctx: RouteContext): ApiResponse {
  return json(200, { import: importView(ctx.core, requireImport(ctx)) });
}

/** Cancels an upload in progress: the import and its parts are gone. */
function cancelImport(ctx: RouteContext): ApiResponse {
  const imp = requireImport(ctx);
  if (imp.status !== "uploading")
    throw conflict(`Cannot cancel an import that is ${imp.status}; only an upload in progress can be canceled`);
  delete ctx.core.data.imports[imp.id];
  return json(200, SUCCESS);
}

function completeImport(ctx: RouteContext): ApiResponse {
  const body = parseWith(CompleteImportRequest, ctx.body);
  const imp = requireImport(ctx);
  if (imp.status === "expired") throw conflict("This upload has expired; start a new import");
  if (imp.status !== "uploading") throw conflict(`Import is ${imp.status}, not uploading`);
  checkParts(imp, body.parts);
  const image = requireImage(body.config.imageId, "config.imageId");
  if (body.config.ramMb % 1024 !== 0) throw badRequest("config.ramMb must be a whole number of GB (a multiple of 1024)");
  if (body.config.diskLimitGb < 10 || body.config.diskLimitGb % 5 !== 0)
    throw badRequest("config.diskLimitGb must be at least 10 and a multiple of 5");
  const cube = insertCube(
    ctx.core,
    {
      spaceId: imp.spaceId,
      name: imp.name,
      image,
      region: imp.region ?? (REGIONS[0]?.slug as string),
      resources: { vcpu: body.config.vcpus, ramGb: body.config.ramMb / 1024, diskGb: body.config.diskLimitGb },
      sshPublicKey: imp.sshPublicKey ?? "",
      userData: body.config.userData ?? imp.userData,
    },
    ctx.now,
  );
  launchCube(ctx.core, cube, ctx.now);
  Object.assign(imp, { status: "provisioning", cubeId: cube.id, updatedAt: isoAt(ctx.now) });
  return json(200, { importId: imp.id, cubeId: cube.id, status: "provisioning" });
}

/** Every part 1..N exactly once, each with the ETag its upload got; the bytes add up to fileSizeBytes. */
function checkParts(imp: ImportRecord, parts: { partNumber: number; etag: string }[]): void {
  const seen = new Set<number>();
  for (const part of parts) {
    if (part.partNumber > imp.partCount)
      throw badRequest(`parts: part ${part.partNumber} does not exist (this import has ${imp.partCount} parts)`);
    if (seen.has(part.partNumber)) throw badRequest(`parts: part ${part.partNumber} is listed twice`);
    seen.add(part.partNumber);
    const uploaded = imp.parts[String(part.partNumber)];
    if (!uploaded) throw badRequest(`parts: part ${part.partNumber} was never uploaded`);
    if (uploaded.etag !== part.etag.replace(/^"|"$/g, ""))
      throw badRequest(`parts: the ETag of part ${part.partNumber} does not match the uploaded part`);
  }
  const missing = Array.from({ length: imp.partCount }, (_, i) => i + 1).filter((n) => !seen.has(n));
  if (missing.length > 0)
    throw badRequest(
      `parts: missing part${missing.length > 1 ? "s" : ""} ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ", …" : ""} of ${imp.partCount}`,
    );
  const total = Object.values(imp.parts).reduce((sum, p) => sum + p.sizeBytes, 0);
  if (total !== imp.fileSizeBytes) throw badRequest(`the uploaded parts hold ${total} bytes, but fileSizeBytes was ${imp.fileSizeBytes}`);
}

/** PUT of one part: its bytes are hashed (MD5, the ETag) and counted, not kept. */
async function receivePart(core: Core, params: Record<string, string>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = params.importId ?? "";
  const imp = rowOf(core.data.imports, id);
  const partNumber = Number(params.partNumber);
  if (imp) settle(core, imp);
  if (imp?.status !== "uploading")
    return refuseStorage(req, res, imp ? 409 : 404, imp ? `Import is ${imp.status}, not uploading` : "Import not found");
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > imp.partCount)
    return refuseStorage(req, res, 400, `No part ${params.partNumber} in this import`);
  const hash = createHash("md5");
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
    await core.pace(chunk.length);
  }
  // Every part but the last is chunkSizeBytes long; the last holds the rest.
  const expected = partNumber < imp.partCount ? imp.chunkSizeBytes : imp.fileSizeBytes - imp.chunkSizeBytes * (imp.partCount - 1);
  if (size !== expected) return refuseStorage(req, res, 400, `Part ${partNumber} must be ${expected} bytes; got ${size}`);
  const etag = hash.digest("hex");
  // Still uploading? (a cancel may have come while the bytes arrived)
  if (core.data.imports[id] !== imp || imp.status !== "uploading")
    return refuseStorage(req, res, 409, "The import was canceled or completed during the upload");
  imp.parts[String(partNumber)] = { etag, sizeBytes: size };
  imp.updatedAt = isoAt(core.now());
  core.save();
  res.writeHead(200, { etag: `"${etag}"`, "content-length": 0 }).end();
}

export const importsResource: Resource = {
  routes: taggedRoutes("Imports", [
    [
      ["POST", IMPORTS, startImport],
      "Initiate a .cube archive import: presigned part URLs (PUT each part, keep its ETag)",
      [201, ref("ImportStarted")],
      [400],
      { body: CreateImportRequest },
    ],
    [["GET", IMPORT, getImport], "Get the current state of an import", [200, single("import", "CubeImport")], [404]],
    [["DELETE", IMPORT, cancelImport], "Cancel an in-flight upload (only allowed in 'uploading' state)", [200, SUCCESS_SCHEMA], [404, 409]],
    [
      ["POST", `${IMPORT}/complete`, completeImport],
      "Finalize a .cube import: every part's ETag and the cube's config; the cube then boots",
      [200, ImportCompleted],
      [400, 404, 409],
      { body: CompleteImportRequest },
    ],
  ]),
  storage: [{ method: "PUT", path: "/imports/{importId}/parts/{partNumber}", handle: receivePart }],
  schemas: { ImportStarted: ImportStarted, CubeImport: CubeImport },
};
