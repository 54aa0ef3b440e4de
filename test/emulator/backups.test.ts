/** Backups and backup sharing (live-api-facts.md §4; reference OpenAPI for the download). */
import { createHash } from "node:crypto";
import { describe, expect } from "vitest";
import { validateResponse } from "../support/openapi.js";
import type { RunningEmulator } from "../../emulator/index.js";
import { apiOf, test, type Api } from "../support/emulator.js";

const BACKUP_FIELDS = [
  "id",
  "name",
  "status",
  "originalCubeId",
  "originalCubeName",
  "sizeBytes",
  "diskSizeGb",
  "config",
  "sharedFromBackupId",
  "redeployedCubeId",
  "completedAt",
  "createdAt",
];
const SHARE_FIELDS = [
  "id",
  "status",
  "backupId",
  "backupName",
  "sourceSpaceId",
  "destinationSpaceId",
  "counterpartySpaceName",
  "copyBackupId",
  "expiresAt",
  "createdAt",
];

const backups = (api: Api, suffix = "") => `/spaces/${api.spaceId}/backups${suffix}`;
const shares = (api: Api, suffix = "") => `/spaces/${api.spaceId}/backup-shares${suffix}`;

/** A running cube and a complete backup of it (`options` as the emulator's admin createBackup takes them). */
async function backupOfRunningCube(api: Api, emu: RunningEmulator, options: { name?: string; sizeBytes?: number } = {}) {
  const cube = await api.runningCube();
  return { cube, backup: emu.admin.createBackup({ cubeId: cube.id, ...options }) };
}

async function fetchBytes(url: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const response = await fetch(url, { headers });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

describe("backups", () => {
  test("§4: list {backups[]} newest first and get {backup} carry the facts sheet's fields; another space's backup is a 404", async ({
    api,
    emu,
  }) => {
    const cube = await api.runningCube({ name: "db" });
    const first = emu.admin.createBackup({ cubeId: cube.id, name: "first" });
    emu.admin.advanceClock(1000);
    const second = emu.admin.createBackup({ cubeId: cube.id, name: "second", sizeBytes: 2 * 1024 * 1024 });
    const list = await api.call("GET", backups(api));
    expect(list.status).toBe(200);
    expect(list.body.backups.map((b: { id: string }) => b.id)).toEqual([second.id, first.id]);
    expect(Object.keys(list.body.backups[0]).sort()).toEqual([...BACKUP_FIELDS].sort());
    expect(list.body.backups[0]).toMatchObject({
      status: "complete",
      originalCubeId: cube.id,
      originalCubeName: "db",
      sizeBytes: 2 * 1024 * 1024,
      sharedFromBackupId: null,
    });
    expect(list.body.backups[0].config).toMatchObject({ vcpus: 1, ramMb: 1024, diskLimitGb: 10, imageId: "ubuntu-24.04" });
    const one = await api.call("GET", backups(api, `/${first.id}`));
    expect(one.body).toEqual({ backup: list.body.backups[1] });
    const other = emu.admin.createSpace({ name: "other" });
    expect((await api.as(other.ownerKey, other.spaceId).call("GET", `/spaces/${other.spaceId}/backups/${first.id}`)).status).toBe(404);
    expect((await api.as(other.ownerKey, other.spaceId).call("GET", `/spaces/${other.spaceId}/backups`)).body).toEqual({ backups: [] });
  });

  test("reference GET /backups/{b}/download: {url, filename, sizeBytes, expiresAt} valid 15 minutes; the URL needs no key and streams the bytes", async ({
    api,
    emu,
  }) => {
    const { backup } = await backupOfRunningCube(api, emu, { name: "nightly", sizeBytes: 1_000_003 });
    const { status, body } = await api.call("GET", backups(api, `/${backup.id}/download`));
    expect(status).toBe(200);
    expect(validateResponse("GET", "/spaces/{spaceId}/backups/{backupId}/download", 200, body)).toEqual([]);
    expect(body).toMatchObject({ filename: "nightly.cube", sizeBytes: 1_000_003 });
    const whole = await fetchBytes(body.url);
    expect(whole.status).toBe(200);
    expect(whole.bytes.length).toBe(1_000_003);
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    // The same bytes every time (a second URL, another read).
    const again = await fetchBytes((await api.call("GET", backups(api, `/${backup.id}/download`))).body.url);
    expect(createHash("sha256").update(again.bytes).digest("hex")).toBe(createHash("sha256").update(whole.bytes).digest("hex"));
  });

  test("RFC 9110 Range: 206 with Content-Range for bytes=N-, N-M and -N; 416 past the end", async ({ api, emu }) => {
    const { backup } = await backupOfRunningCube(api, emu, { sizeBytes: 100_000 });
    const { url } = (await api.call("GET", backups(api, `/${backup.id}/download`))).body;
    const whole = (await fetchBytes(url)).bytes;
    const tail = await fetchBytes(url, { range: "bytes=12345-" });
    expect(tail.status).toBe(206);
    expect(tail.headers.get("content-range")).toBe("bytes 12345-99999/100000");
    expect(tail.bytes.equals(whole.subarray(12345))).toBe(true);
    const middle = await fetchBytes(url, { range: "bytes=17-33" });
    expect(middle.bytes.equals(whole.subarray(17, 34))).toBe(true);
    const suffix = await fetchBytes(url, { range: "bytes=-10" });
    expect(suffix.bytes.equals(whole.subarray(99_990))).toBe(true);
    expect((await fetchBytes(url, { range: "bytes=100000-" })).status).toBe(416);
  });

  test("RFC 9110 If-Range: the Range is honoured for the archive's own ETag or Last-Modified; another backup's ETag gets the whole archive (200)", async ({
    api,
    emu,
  }) => {
    const cube = await api.runningCube();
    const [one, two] = [
      emu.admin.createBackup({ cubeId: cube.id, name: "one", sizeBytes: 50_000 }),
      emu.admin.createBackup({ cubeId: cube.id, name: "two", sizeBytes: 50_000 }),
    ];
    const urlOf = async (id: string): Promise<string> => (await api.call("GET", backups(api, `/${id}/download`))).body.url;
    const whole = await fetchBytes(await urlOf(one.id));
    const etag = whole.headers.get("etag") ?? "";
    const lastModified = whole.headers.get("last-modified") ?? "";
    expect(etag).toMatch(/^"\w+"$/);
    expect(lastModified).not.toBe("");
    expect((await fetchBytes(await urlOf(one.id), { range: "bytes=100-", "if-range": etag })).status).toBe(206);
    expect((await fetchBytes(await urlOf(one.id), { range: "bytes=100-", "if-range": lastModified })).status).toBe(206);
    const otherEtag = (await fetchBytes(await urlOf(two.id))).headers.get("etag") ?? "";
    expect(otherEtag).not.toBe(etag);
    const refused = await fetchBytes(await urlOf(two.id), { range: "bytes=100-", "if-range": etag });
    expect(refused.status).toBe(200);
    expect(refused.bytes.length).toBe(50_000);
    expect(refused.headers.get("content-range")).toBeNull();
  });

  test("reference: the URL is valid 15 minutes (expiresAt), then 403; a tampered URL is a 403; a backup that is not complete is a 409", async ({
    api,
    emu,
  }) => {
    const { cube, backup } = await backupOfRunningCube(api, emu);
    emu.admin.setClockSpeed(1);
    const { url, expiresAt } = (await api.call("GET", backups(api, `/${backup.id}/download`))).body;
    expect((await fetchBytes(url.replace(/signature=(.)/, (_: string, c: string) => `signature=${c === "0" ? "1" : "0"}`))).status).toBe(
      403,
    );
    expect((await fetchBytes(url.replace(/expires=\d+/, "expires=99999999999999"))).status).toBe(403);
    emu.admin.advanceClock(14 * 60_000);
    expect((await fetchBytes(url)).status).toBe(200);
    expect(
      Date.parse(expiresAt) - Date.parse((await api.call("GET", backups(api, `/${backup.id}/download`))).body.expiresAt),
    ).toBeLessThanOrEqual(-14 * 60_000);
    emu.admin.advanceClock(60_000 + 1000);
    const expired = await fetchBytes(url);
    expect(expired.status).toBe(403);
    expect(JSON.parse(expired.bytes.toString()).error).toMatch(/expired/);
    const pending = emu.admin.createBackup({ cubeId: cube.id, status: "pending" });
    const refused = await api.call("GET", backups(api, `/${pending.id}/download`));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/not complete/);
  });
});

describe("backup sharing", () => {
  test("§4: share → 201 {share} pending 48 h; shares {incoming, outgoing}; accept → {share, backup} copy with sharedFromBackupId and the same bytes", async ({
    api,
    emu,
  }) => {
    const { backup } = await backupOfRunningCube(api, emu, { name: "prod", sizeBytes: 50_000 });
    const dest = emu.admin.createSpace({ name: "staging" });
    const destApi = apiOf(emu).as(dest.ownerKey, dest.spaceId);
    const created = await api.call(
      "POST",
      backups(api, `/${backup.id}/shares`),
      { destinationSpaceId: dest.spaceId },
      { "idempotency-key": "share-1" },
    );
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.share).sort()).toEqual([...SHARE_FIELDS].sort());
    expect(created.body.share).toMatchObject({
      status: "pending",
      backupId: backup.id,
      backupName: "prod",
      sourceSpaceId: api.spaceId,
      destinationSpaceId: dest.spaceId,
      counterpartySpaceName: "staging",
      copyBackupId: null,
    });
    expect(Date.parse(created.body.share.expiresAt) - Date.parse(created.body.share.createdAt)).toBe(48 * 3600_000);
    const replay = await api.call(
      "POST",
      backups(api, `/${backup.id}/shares`),
      { destinationSpaceId: dest.spaceId },
      { "idempotency-key": "share-1" },
    );
    expect(replay.body.share.id).toBe(created.body.share.id);
    expect((await api.call("GET", shares(api))).body).toEqual({ incoming: [], outgoing: [created.body.share] });
    const incoming = (await destApi.call("GET", shares(destApi))).body.incoming;
    expect(incoming).toHaveLength(1);
    expect(incoming[0].counterpartySpaceName).toBe("Emulated space");
    const accepted = await destApi.call("POST", shares(destApi, `/${created.body.share.id}/accept`));
    expect(accepted.status).toBe(200);
    expect(accepted.body.share).toMatchObject({ status: "accepted", copyBackupId: accepted.body.backup.id });
    expect(accepted.body.backup).toMatchObject({ sharedFromBackupId: backup.id, name: "prod", sizeBytes: 50_000, status: "complete" });
    expect((await destApi.call("GET", shares(destApi))).body).toEqual({ incoming: [], outgoing: [] });
    const source = (await api.call("GET", backups(api, `/${backup.id}/download`))).body.url;
    const copy = (await destApi.call("GET", `/spaces/${dest.spaceId}/backups/${accepted.body.backup.id}/download`)).body.url;
    expect(Buffer.from(await (await fetch(copy)).arrayBuffer()).equals(Buffer.from(await (await fetch(source)).arrayBuffer()))).toBe(true);
  });

  test("§4 permissions: a read-only key cannot accept (the facts' 403); the source cannot accept; the destination cannot cancel", async ({
    api,
    emu,
  }) => {
    const { backup } = await backupOfRunningCube(api, emu);
    const dest = emu.admin.createSpace({ name: "dest" });
    const share = (await api.call("POST", backups(api, `/${backup.id}/shares`), { destinationSpaceId: dest.spaceId })).body.share;
    const readOnly = apiOf(emu).as(dest.readOnlyKey, dest.spaceId);
    const refused = await readOnly.call("POST", shares(readOnly, `/${share.id}/accept`));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe(
      "Only the destination space's owner, or a member who can manage its backups, can respond to this share.",
    );
    expect((await readOnly.call("GET", shares(readOnly))).body.incoming).toHaveLength(1);
    expect((await api.call("POST", shares(api, `/${share.id}/accept`))).status).toBe(403);
    const owner = apiOf(emu).as(dest.ownerKey, dest.spaceId);
    expect((await owner.call("POST", shares(owner, `/${share.id}/cancel`))).status).toBe(403);
    const outsider = emu.admin.createSpace();
    const stranger = apiOf(emu).as(outsider.ownerKey, outsider.spaceId);
    expect((await stranger.call("POST", shares(stranger, `/${share.id}/accept`))).status).toBe(404);
    const canceled = await api.call("POST", shares(api, `/${share.id}/cancel`));
    expect(canceled.body.share.status).toBe("canceled");
    expect((await owner.call("POST", shares(owner, `/${share.id}/accept`))).status).toBe(409);
  });

  test("§4: accept with no allowance left is the facts' 422 and copies nothing; decline ends the offer; 48 h later it is gone", async ({
    api,
    emu,
  }) => {
    const { backup } = await backupOfRunningCube(api, emu);
    const dest = emu.admin.createSpace();
    const destApi = apiOf(emu).as(dest.ownerKey, dest.spaceId);
    emu.admin.setBackupAllowance({ spaceId: dest.spaceId, allowance: 0 });
    const share = (await api.call("POST", backups(api, `/${backup.id}/shares`), { destinationSpaceId: dest.spaceId })).body.share;
    const full = await destApi.call("POST", shares(destApi, `/${share.id}/accept`));
    expect(full.status).toBe(422);
    expect(full.body).toEqual({ error: "This space has no backup allowance left on its plan." });
    expect((await destApi.call("GET", `/spaces/${dest.spaceId}/backups`)).body.backups).toEqual([]);
    const declined = await destApi.call("POST", shares(destApi, `/${share.id}/decline`));
    expect(declined.body.share.status).toBe("declined");
    const again = (await api.call("POST", backups(api, `/${backup.id}/shares`), { destinationSpaceId: dest.spaceId })).body.share;
    emu.admin.advanceClock(48 * 3600_000 + 1000);
    expect((await api.call("GET", shares(api))).body.outgoing).toEqual([]);
    expect((await destApi.call("POST", shares(destApi, `/${again.id}/accept`))).status).toBe(409);
  });

  test("bad share requests: own space 400, unknown space 404, missing field 400, unknown backup 404", async ({ api, emu }) => {
    const { backup } = await backupOfRunningCube(api, emu);
    expect((await api.call("POST", backups(api, `/${backup.id}/shares`), { destinationSpaceId: api.spaceId })).status).toBe(400);
    expect((await api.call("POST", backups(api, `/${backup.id}/shares`), { destinationSpaceId: "spc_nope" })).status).toBe(404);
    expect((await api.call("POST", backups(api, `/${backup.id}/shares`), {})).body.error).toMatch(/destinationSpaceId/);
    expect((await api.call("POST", backups(api, "/bkp_nope/shares"), { destinationSpaceId: "x" })).status).toBe(404);
    expect((await api.call("GET", shares(api))).body).toEqual({ incoming: [], outgoing: [] });
  });
});
