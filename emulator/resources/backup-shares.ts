/**
 * Backup sharing (live-api-facts.md §4): a space offers a backup to another, nothing copied until that one accepts
 * within 48 h (the copy has sharedFromBackupId); decline, or cancel by the source, ends the offer.
 */
import { BackupShare, CreateShareRequest } from "../../schema/api.js";
import type { RouteContext } from "../core/context.js";
import type { Core } from "../core/core.js";
import { badRequest, conflict, HttpError, json, notFound, parseWith, type ApiResponse } from "../core/http.js";
import { isoAt, newId } from "../core/ids.js";
import { rowOf } from "../core/indexes.js";
import { object, ref, single } from "../core/openapi-doc.js";
import { taggedRoutes, type Resource } from "../core/resource.js";
import type { BackupRecord, ShareRecord } from "../core/state.js";
import { backupsOf, backupView, requireBackup } from "./backups.js";

export const SHARE_TTL_MS = 48 * 3600 * 1000;
export const RESPOND_FORBIDDEN = "Only the destination space's owner, or a member who can manage its backups, can respond to this share.";
export const NO_ALLOWANCE = "This space has no backup allowance left on its plan.";
const SHARE = "/spaces/{spaceId}/backup-shares/{shareId}";

/** counterpartySpaceName: the other side's name, as the viewing space sees it. */
function shareView(core: Core, share: ShareRecord, viewerSpaceId: string): BackupShare {
  const other = viewerSpaceId === share.sourceSpaceId ? share.destinationSpaceId : share.sourceSpaceId;
  return {
    id: share.id,
    status: share.status,
    backupId: share.backupId,
    backupName: share.backupName,
    sourceSpaceId: share.sourceSpaceId,
    destinationSpaceId: share.destinationSpaceId,
    counterpartySpaceName: core.data.spaces[other]?.name ?? null,
    copyBackupId: share.copyBackupId,
    expiresAt: isoAt(share.expiresAtMs),
    createdAt: share.createdAt,
  };
}

function isOpen(share: ShareRecord, now: number): boolean {
  return share.status === "pending" && now <= share.expiresAtMs;
}

function createShare(ctx: RouteContext): ApiResponse {
  const body = parseWith(CreateShareRequest, ctx.body);
  const backup = requireBackup(ctx);
  if (backup.status !== "complete") throw conflict(`Backup is not complete (it is ${backup.status}); only a complete backup can be shared`);
  if (body.destinationSpaceId === ctx.auth.spaceId) throw badRequest("destinationSpaceId: a backup cannot be shared with its own space");
  if (!Object.hasOwn(ctx.core.data.spaces, body.destinationSpaceId)) throw notFound("Destination space");
  const duplicate = Object.values(ctx.core.data.backupShares).find(
    (s) => s.backupId === backup.id && s.destinationSpaceId === body.destinationSpaceId && isOpen(s, ctx.now),
  );
  if (duplicate) throw conflict(`This backup already has a pending share to that space (${duplicate.id})`);
  const share: ShareRecord = {
    id: newId("shr"),
    status: "pending",
    backupId: backup.id,
    backupName: backup.name,
    sourceSpaceId: ctx.auth.spaceId,
    destinationSpaceId: body.destinationSpaceId,
    raisedByKeyId: ctx.auth.keyId,
    copyBackupId: null,
    expiresAtMs: ctx.now + SHARE_TTL_MS,
    createdAt: isoAt(ctx.now),
  };
  ctx.core.data.backupShares[share.id] = share;
  return json(201, { share: shareView(ctx.core, share, ctx.auth.spaceId) });
}

function listShares(ctx: RouteContext): ApiResponse {
  const open = Object.values(ctx.core.data.backupShares).filter((s) => isOpen(s, ctx.now));
  const view = (s: ShareRecord) => shareView(ctx.core, s, ctx.auth.spaceId);
  return json(200, {
    incoming: open.filter((s) => s.destinationSpaceId === ctx.auth.spaceId).map(view),
    outgoing: open.filter((s) => s.sourceSpaceId === ctx.auth.spaceId).map(view),
  });
}

/** A share this space is a party to (`side`); any other is reported as missing. */
function requireShare(ctx: RouteContext, side: "destination" | "source"): ShareRecord {
  const id = ctx.params.shareId ?? "";
  const share = rowOf(ctx.core.data.backupShares, id);
  if (!share || (share.sourceSpaceId !== ctx.auth.spaceId && share.destinationSpaceId !== ctx.auth.spaceId)) throw notFound("Backup share");
  const party = side === "destination" ? share.destinationSpaceId : share.sourceSpaceId;
  if (party !== ctx.auth.spaceId)
    throw new HttpError(403, side === "destination" ? RESPOND_FORBIDDEN : "Only the space that raised this share can cancel it.");
  if (share.status !== "pending") throw conflict(`This share is already ${share.status}`);
  if (ctx.now > share.expiresAtMs) throw conflict("This share has expired (shares must be answered within 48 hours)");
  return share;
}

function acceptShare(ctx: RouteContext): ApiResponse {
  const share = requireShare(ctx, "destination");
  const source = ctx.core.data.backups[share.backupId];
  if (!source) throw conflict("The shared backup no longer exists");
  const allowance = ctx.core.data.backupAllowance[share.destinationSpaceId];
  if (allowance !== undefined && backupsOf(ctx.core, share.destinationSpaceId).length >= allowance) throw new HttpError(422, NO_ALLOWANCE);
  const at = isoAt(ctx.now);
  const copy: BackupRecord = {
    ...source,
    config: source.config && { ...source.config },
    id: newId("bkp"),
    spaceId: share.destinationSpaceId,
    sharedFromBackupId: source.id,
    redeployedCubeId: null,
    createdAt: at,
    completedAt: at,
  };
  ctx.core.data.backups[copy.id] = copy;
  share.status = "accepted";
  share.copyBackupId = copy.id;
  ctx.core.events.emit(copy.spaceId, "backup.created", { backup: backupView(copy) }, ctx.now);
  return json(200, { share: shareView(ctx.core, share, ctx.auth.spaceId), backup: backupView(copy) });
}

/** Decline (by the destination) or cancel (by the source): the offer ends, nothing is copied. */
const endShare =
  (side: "destination" | "source", status: "declined" | "canceled") =>
  (ctx: RouteContext): ApiResponse => {
    const share = requireShare(ctx, side);
    share.status = status;
    return json(200, { share: shareView(ctx.core, share, ctx.auth.spaceId) });
  };
const declineShare = endShare("destination", "declined");
const cancelShare = endShare("source", "canceled");

const ONE_SHARE = single("share", "BackupShare");
const SHARES = { type: "array", items: ref("BackupShare") };
const SHARE_LISTS = object({ incoming: SHARES, outgoing: SHARES });
const ACCEPTED = object({ share: ref("BackupShare"), backup: ref("Backup") });

export const backupSharesResource: Resource = {
  routes: taggedRoutes("Backups", [
    [
      ["POST", "/spaces/{spaceId}/backups/{backupId}/shares", createShare],
      "Offer a backup to another space (pending until it accepts, 48 h)",
      [201, ONE_SHARE],
      [400, 404, 409],
      { body: CreateShareRequest },
    ],
    [["GET", "/spaces/{spaceId}/backup-shares", listShares], "Pending, unexpired shares to and from this space", [200, SHARE_LISTS]],
    [
      ["POST", `${SHARE}/accept`, acceptShare],
      "Accept a share: the copy is made in this space",
      [200, ACCEPTED],
      [404, 409, 422],
      { readOnlyMessage: RESPOND_FORBIDDEN },
    ],
    [["POST", `${SHARE}/decline`, declineShare], "Decline a share", [200, ONE_SHARE], [404, 409], { readOnlyMessage: RESPOND_FORBIDDEN }],
    [["POST", `${SHARE}/cancel`, cancelShare], "Cancel a share this space raised", [200, ONE_SHARE], [404, 409]],
  ]),
  schemas: { BackupShare: BackupShare },
};
