/** `cubeform backup list|show|download|share|shares|accept|decline|cancel`: the space's backups and sharing them (live-api-facts.md §4). */
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { newIdempotencyKey } from "../../client/light.js";
import type { CubeApi } from "../../client/api.js";
import type { Backup, BackupShare } from "../../schema/api.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { escapeText } from "../render/escape.js";
import { formatBytes, progressLine } from "../render/progress.js";
import { confirmDay2, orDash, pick, printJson, say, withApi, type Confirmable, type Day2Context } from "../session/day2.js";
import { details, table } from "../render/table.js";

export async function findBackup(client: CubeApi, ref: string): Promise<Backup> {
  return pick(await client.listBackups(), ref, "backup", "in this space");
}

export async function runBackupList(ctx: Day2Context, io: CliIo): Promise<number> {
  const backups = await withApi(ctx, io, (client) => client.listBackups());
  if (ctx.format === "json") printJson(io, backups);
  else if (backups.length === 0) say(io, ctx, "No backups in this space.");
  else {
    const rows = backups.map((b) => [
      b.name,
      b.id,
      b.status,
      b.sizeBytes == null ? "-" : formatBytes(b.sizeBytes),
      orDash(b.originalCubeName),
      b.createdAt,
      b.sharedFromBackupId ? `shared from ${b.sharedFromBackupId}` : "",
    ]);
    io.stdout.write(table(["NAME", "ID", "STATUS", "SIZE", "FROM CUBE", "CREATED", ""], rows));
  }
  return 0;
}

export async function runBackupShow(ctx: Day2Context & { backup: string }, io: CliIo): Promise<number> {
  const backup = await withApi(ctx, io, async (client) => client.getBackup((await findBackup(client, ctx.backup)).id));
  if (ctx.format === "json") printJson(io, backup);
  else {
    const config = backup.config;
    io.stdout.write(
      details([
        ["name", backup.name],
        ["id", backup.id],
        ["status", backup.status],
        ["size", backup.sizeBytes == null ? "-" : `${formatBytes(backup.sizeBytes)} (${backup.sizeBytes} bytes)`],
        ["from cube", `${orDash(backup.originalCubeName)} (${orDash(backup.originalCubeId)})`],
        ["disk", backup.diskSizeGb == null ? "-" : `${backup.diskSizeGb} GB`],
        [
          "config",
          config
            ? `${orDash(config.vcpus)} vCPU, ${orDash(config.ramMb)} MB RAM, ${orDash(config.diskLimitGb)} GB disk, ${orDash(config.imageId)}, ${orDash(config.regionName)}`
            : "-",
        ],
        ["shared from", orDash(backup.sharedFromBackupId)],
        ["created", backup.createdAt],
        ["completed", orDash(backup.completedAt)],
      ]),
    );
  }
  return 0;
}

export interface DownloadContext extends Day2Context {
  backup: string;
  out?: string;
  force: boolean;
}

/** Streams the archive to --out (default: the API's filename); an existing FILE.part is resumed. */
export async function runBackupDownload(ctx: DownloadContext, io: CliIo): Promise<number> {
  return withApi(ctx, io, async (client) => {
    const backup = await findBackup(client, ctx.backup);
    if (backup.status !== "complete")
      throw new CliError("backup_not_complete", `backup "${backup.name}" is ${backup.status}; it can be downloaded once complete`);
    const link = await client.getBackupDownload(backup.id);
    const name = ctx.out ?? archiveNameOf(link.filename, backup.id, io);
    const file = isAbsolute(name) ? name : resolve(ctx.cwd, name);
    if (existsSync(file) && !ctx.force)
      throw new CliError("output_exists", `${name} already exists; pass --force to overwrite it (or --out FILE)`);
    const progress = progressLine(io, `downloading ${name}`);
    let first = true;
    const result = await client.downloadBackup(backup.id, file, {
      ...(io.signal ? { signal: io.signal } : {}),
      onStartOver: (reason) => say(io, { ...ctx, format: "json" }, `starting over: ${reason}`),
      onProgress: (p) => {
        if (first && p.resumedFrom > 0)
          say(io, { ...ctx, format: "json" }, `resuming from ${formatBytes(p.resumedFrom)} already in ${name}.part`);
        first = false;
        progress.update(p);
      },
    });
    progress.done({ bytes: result.bytes, total: result.bytes });
    if (ctx.format === "json")
      printJson(io, {
        backupId: backup.id,
        file: result.file,
        bytes: result.bytes,
        resumedFrom: result.resumedFrom,
        ...(result.startedOver ? { startedOver: result.startedOver } : {}),
        changed: true,
      });
    else
      say(
        io,
        ctx,
        `Downloaded backup "${backup.name}" to ${name} (${result.bytes} bytes${result.resumedFrom > 0 ? `, resumed from ${result.resumedFrom}` : result.startedOver ? ", started over" : ""}).`,
      );
    return 0;
  });
}

/**
 * A file name the API may choose in the working directory: no path (no `/` or `\`), no control,
 * separator or bidi character, not hidden (a leading dot: `.bashrc`, `..`), and not over 255 bytes.
 */
const NOT_IN_A_NAME = /[/\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const isPlainFileName = (name: string): boolean =>
  name !== "" && !name.startsWith(".") && !NOT_IN_A_NAME.test(name) && Buffer.byteLength(name) <= 255;

/** The API's filename when it is a plain file name, else `<backup-id>.cube` (said on stderr). */
function archiveNameOf(filename: string, backupId: string, io: CliIo): string {
  if (isPlainFileName(filename)) return filename;
  const fallback = `${backupId}.cube`;
  if (!isPlainFileName(fallback))
    throw new CliError(
      "bad_filename",
      `the API named the archive ${JSON.stringify(filename)}, which is not a plain file name; pass --out FILE`,
    );
  writeLine(
    io.stderr,
    escapeText(
      `the API named the archive ${JSON.stringify(filename)}, which is not a plain file name (a path, a hidden file or a control character); saving it as ${fallback} (--out FILE names another)`,
    ),
  );
  return fallback;
}

export async function runBackupShare(ctx: Day2Context & Confirmable & { backup: string; to: string }, io: CliIo): Promise<number> {
  const share = await withApi(ctx, io, async (client) => {
    const backup = await findBackup(client, ctx.backup);
    if (ctx.to === (await client.spaceId()))
      throw new CliError("share_to_self", `--to ${ctx.to} is this backup's own space; name another space's id`);
    await confirmDay2(
      ctx,
      io,
      `share backup "${backup.name}" with space ${ctx.to}`,
      `Offer backup "${backup.name}" to space ${ctx.to}? Once it accepts, that space holds a copy of the disk.`,
    );
    return client.shareBackup(backup.id, ctx.to, { idempotencyKey: newIdempotencyKey() });
  });
  if (ctx.format === "json") printJson(io, { ...share, changed: true });
  else
    say(
      io,
      ctx,
      `Offered backup "${share.backupName ?? share.backupId}" to space ${share.destinationSpaceId} (share ${share.id}, pending until ${share.expiresAt}). Nothing is copied until that space accepts.`,
    );
  return 0;
}

function shareRows(shares: BackupShare[], direction: "incoming" | "outgoing"): string[][] {
  return shares.map((s) => [
    direction,
    s.id,
    orDash(s.backupName ?? s.backupId),
    direction === "incoming" ? s.sourceSpaceId : s.destinationSpaceId,
    orDash(s.counterpartySpaceName),
    s.status,
    s.expiresAt,
  ]);
}

export async function runBackupShares(ctx: Day2Context, io: CliIo): Promise<number> {
  const shares = await withApi(ctx, io, (client) => client.listBackupShares());
  if (ctx.format === "json") printJson(io, shares);
  else if (shares.incoming.length + shares.outgoing.length === 0) say(io, ctx, "No pending backup shares.");
  else
    io.stdout.write(
      table(
        ["DIRECTION", "SHARE", "BACKUP", "OTHER SPACE", "ITS NAME", "STATUS", "EXPIRES"],
        [...shareRows(shares.incoming, "incoming"), ...shareRows(shares.outgoing, "outgoing")],
      ),
    );
  return 0;
}

export type ShareAnswer = "accept" | "decline" | "cancel";

export async function runBackupAnswer(ctx: Day2Context & { share: string; answer: ShareAnswer }, io: CliIo): Promise<number> {
  const result = await withApi(ctx, io, async (client) => {
    if (ctx.answer === "accept") return client.acceptBackupShare(ctx.share);
    return { share: ctx.answer === "decline" ? await client.declineBackupShare(ctx.share) : await client.cancelBackupShare(ctx.share) };
  });
  if (ctx.format === "json") printJson(io, { ...result, changed: true });
  else if ("backup" in result)
    say(io, ctx, `Accepted share ${result.share.id}: backup "${result.backup.name}" (${result.backup.id}) is now in this space.`);
  else say(io, ctx, `Share ${result.share.id} is ${result.share.status}.`);
  return 0;
}
