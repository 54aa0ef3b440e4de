/** Backups (live-api-facts.md §4): list, get, a presigned download URL (Range honoured); made on the admin surface. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Backup, BackupDownload } from "../../schema/api.js";
import { pathRow, type RouteContext } from "../core/context.js";
import type { Core } from "../core/core.js";
import { badRequest, conflict, json, notFound, type ApiResponse } from "../core/http.js";
import { isoAt, newId, randomHex } from "../core/ids.js";
import { rowOf } from "../core/indexes.js";
import { listOf, ref, single } from "../core/openapi-doc.js";
import { parseRange } from "../core/range.js";
import { refuseStorage, taggedRoutes, type Resource } from "../core/resource.js";
import type { BackupRecord, CubeRecord } from "../core/state.js";
import { archiveBytes } from "./archive.js";
import { findRegion } from "./catalog.js";
import { newestFirst } from "./views.js";
import type { EmulatorAdmin } from "../types.js";

export const DOWNLOAD_URL_TTL_MS = 15 * 60 * 1000;
export const DEFAULT_BACKUP_BYTES = 8 * 1024 * 1024;
const BACKUP = "/spaces/{spaceId}/backups/{backupId}";

export function backupView(backup: BackupRecord): Backup {
  const { spaceId: _space, contentSeed: _seed, ...view } = backup;
  return {
    ...view,
    config: backup.config && { ...backup.config, domains: [...backup.config.domains], tcpPorts: [...backup.config.tcpPorts] },
  };
}

export function requireBackup(ctx: RouteContext): BackupRecord {
  return pathRow(ctx, ctx.core.data.backups, "backupId", "Backup");
}

export function backupsOf(core: Core, spaceId: string): BackupRecord[] {
  return Object.values(core.data.backups).filter((b) => b.spaceId === spaceId);
}

function listBackups(ctx: RouteContext): ApiResponse {
  return json(200, { backups: newestFirst(backupsOf(ctx.core, ctx.auth.spaceId)).map(backupView) });
}

function getBackup(ctx: RouteContext): ApiResponse {
  return json(200, { backup: backupView(requireBackup(ctx)) });
}

export function archiveFilename(backup: BackupRecord): string {
  return `${backup.name.replace(/[^A-Za-z0-9._-]+/g, "-")}.cube`;
}

function downloadBackup(ctx: RouteContext): ApiResponse {
  const backup = requireBackup(ctx);
  if (backup.status !== "complete") throw conflict(`Backup is not complete (it is ${backup.status}); it can be downloaded once complete`);
  const expiresAt = ctx.now + DOWNLOAD_URL_TTL_MS;
  return json(200, {
    url: ctx.core.presigner.url(ctx.origin, `/backups/${encodeURIComponent(backup.id)}`, expiresAt),
    filename: archiveFilename(backup),
    sizeBytes: backup.sizeBytes,
    expiresAt: isoAt(expiresAt),
  });
}

/** The archive bytes: 200 whole, 206 for a satisfiable Range, 416 otherwise. */
async function streamArchive(core: Core, params: Record<string, string>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const backup = rowOf(core.data.backups, params.backupId ?? "");
  if (backup?.status !== "complete") return refuseStorage(req, res, 404, "Backup archive not found");
  const size = backup.sizeBytes;
  const validators = { etag: `"${backup.contentSeed}"`, "last-modified": new Date(backup.completedAt ?? backup.createdAt).toUTCString() };
  const range = rangeApplies(req.headers["if-range"], validators) ? parseRange(req.headers.range, size) : ({ kind: "full" } as const);
  const headers = {
    "content-type": "application/octet-stream",
    "accept-ranges": "bytes",
    ...validators,
    "content-disposition": `attachment; filename="${archiveFilename(backup)}"`,
  };
  if (range.kind === "unsatisfiable")
    return void res.writeHead(416, { ...headers, "content-range": `bytes */${size}`, "content-length": 0 }).end();
  const [start, end] = range.kind === "partial" ? [range.start, range.end] : [0, size - 1];
  const status = range.kind === "partial" ? 206 : 200;
  res.writeHead(status, {
    ...headers,
    "content-length": end - start + 1,
    ...(status === 206 ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === "HEAD") return void res.end();
  await pipeline(Readable.from(paced(core, archiveBytes(backup.contentSeed, start, end))), res);
}

/** If-Range (RFC 9110 §13.1.5): the Range holds only for the current strong ETag or exact Last-Modified date. */
function rangeApplies(ifRange: string | string[] | undefined, validators: { etag: string; "last-modified": string }): boolean {
  if (ifRange === undefined) return true;
  const value = (Array.isArray(ifRange) ? ifRange.join(",") : ifRange).trim();
  return value.startsWith('"') ? value === validators.etag : value === validators["last-modified"];
}

async function* paced(core: Core, chunks: Iterable<Buffer>): AsyncGenerator<Buffer> {
  for (const chunk of chunks) {
    yield chunk;
    await core.pace(chunk.length);
  }
}

/** Admin surface: a backup of a cube (complete unless told otherwise). */
export function createBackup(core: Core, input: Parameters<EmulatorAdmin["createBackup"]>[0]): Backup {
  const cube = core.index.cubes.get(input.cubeId);
  if (!cube) throw notFound("Cube");
  const sizeBytes = input.sizeBytes ?? DEFAULT_BACKUP_BYTES;
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 1) throw badRequest("sizeBytes must be a positive integer");
  const now = core.now();
  const at = isoAt(now);
  const status = input.status ?? "complete";
  const backup: BackupRecord = {
    id: newId("bkp"),
    spaceId: cube.spaceId,
    name: input.name ?? `${cube.name}-${at.replace(/[:.]/g, "-")}`,
    status,
    originalCubeId: cube.id,
    originalCubeName: cube.name,
    sizeBytes,
    diskSizeGb: cube.resources.diskGb,
    config: configOf(core, cube),
    sharedFromBackupId: null,
    redeployedCubeId: null,
    completedAt: status === "complete" ? at : null,
    createdAt: at,
    contentSeed: randomHex(16),
  };
  core.data.backups[backup.id] = backup;
  core.events.emit(backup.spaceId, "backup.created", { backup: backupView(backup) }, now);
  return backupView(backup);
}

function configOf(core: Core, cube: CubeRecord): NonNullable<BackupRecord["config"]> {
  const region = findRegion(cube.region);
  return {
    vcpus: cube.resources.vcpu,
    ramMb: Math.round(cube.resources.ramGb * 1024),
    diskLimitGb: cube.resources.diskGb,
    imageId: cube.image,
    regionId: region?.id ?? null,
    regionName: region?.name ?? null,
    domains: core.index.domains.ofCube(cube.id).map((d) => d.domain),
    tcpPorts: core.index.tcp
      .ofCube(cube.id)
      .filter((m) => !m.isSsh)
      .map((m) => m.cubePort),
  };
}

export const backupsResource: Resource = {
  routes: taggedRoutes("Backups", [
    [["GET", "/spaces/{spaceId}/backups", listBackups], "List backups, newest first", [200, listOf("backups", "Backup")]],
    [["GET", BACKUP, getBackup], "Get a backup", [200, single("backup", "Backup")], [404]],
    [
      ["GET", `${BACKUP}/download`, downloadBackup],
      "Generate a presigned download URL for a backup .cube archive (15 minutes, no key needed; Range honoured)",
      [200, ref("BackupDownload")],
      [404, 409],
    ],
  ]),
  storage: [{ method: "GET", path: "/backups/{backupId}", handle: streamArchive }],
  schemas: { Backup: Backup, BackupDownload: BackupDownload },
};
