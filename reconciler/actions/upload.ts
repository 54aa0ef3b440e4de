/** `cubeform upload ARCHIVE.cube --name NAME`: a new cube from a .cube archive (the API's import: multipart upload; not `cubeform import`). */
import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { SSH_PUBLIC_KEY_FILE } from "../../desired/index.js";
import { readRegularText, tryOr } from "../../system/files.js";
import { isCubeApiError, newIdempotencyKey } from "../../client/light.js";
import { IMPORT_MIN_BYTES, SSH_KEY_PATTERN, type Cube } from "../../schema/api.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { formatBytes, progressLine } from "../render/progress.js";
import { printJson, say, withApi, type Day2Context, type WaitFlags, waitForState } from "../session/day2.js";
import type { CubeApi } from "../../client/api.js";
import { escapeText } from "../render/escape.js";

export const DEFAULT_IMAGE = "ubuntu-24.04";

export interface UploadContext extends Day2Context, WaitFlags {
  archive: string;
  name: string;
  /** A public key file, or the key itself; else CUBE_SSH_PUBLIC_KEY. */
  sshKey?: string;
  /** Keep the archive's own authorized_keys (sshKeyMode keep). */
  keepSshKeys: boolean;
  /** The size and image: the flags, else the archive's (archiveConfig). */
  vcpu?: number;
  ramGb?: number;
  diskGb?: number;
  image?: string;
  region?: string;
  concurrency: number;
  /** On failure or Ctrl-C, leave the import in place instead of canceling it. */
  keep: boolean;
}

export async function runUpload(ctx: UploadContext, io: CliIo): Promise<number> {
  const file = isAbsolute(ctx.archive) ? ctx.archive : resolve(ctx.cwd, ctx.archive);
  const size = await archiveSize(file, ctx.archive);
  const sshPublicKey = ctx.keepSshKeys ? null : publicKey(ctx, io);
  return withApi(ctx, io, async (client) => {
    await refuseTakenName(client, ctx.name);
    const config = await archiveConfig(client, ctx, size, io);
    let importId = "";
    const progress = progressLine(io, `uploading ${ctx.archive}`);
    let completed;
    try {
      completed = await client.importArchive(
        file,
        {
          name: ctx.name,
          sshKeyMode: ctx.keepSshKeys ? "keep" : "replace",
          ...(sshPublicKey ? { sshPublicKey } : {}),
          ...(ctx.region ? { region: ctx.region } : {}),
        },
        {
          idempotencyKey: newIdempotencyKey(),
          config,
          concurrency: ctx.concurrency,
          keep: ctx.keep,
          ...(io.signal ? { signal: io.signal } : {}),
          onStarted: (started) => {
            importId = started.importId;
            writeLine(
              io.stderr,
              escapeText(
                `import ${started.importId}: ${started.parts.length} part${started.parts.length === 1 ? "" : "s"} of ${formatBytes(started.chunkSizeBytes)}, ${ctx.concurrency} at a time`,
              ),
            );
          },
          onProgress: (p) => progress.update(p),
        },
      );
    } catch (error) {
      if (!importId) throw error;
      const what = ctx.keep
        ? `import ${importId} was kept (--keep); cancel it with the API's DELETE or let it expire`
        : `import ${importId} was canceled; nothing was created`;
      const reason = io.signal?.aborted ? "upload stopped" : `upload failed: ${(error as Error).message}`;
      throw new CliError(io.signal?.aborted ? "stopped" : "upload_failed", `${reason}; ${what}`, io.signal?.aborted ? 130 : 1);
    }
    progress.done({ bytes: size, total: size });
    say(io, ctx, `Uploaded ${ctx.archive} (${formatBytes(size)}): cube "${ctx.name}" (${completed.cubeId}) is ${completed.status}.`);
    let cube: Cube | undefined;
    if (ctx.wait) {
      cube = await waitForState(client, await client.getCube(completed.cubeId), "running", ctx, io);
      say(io, ctx, `Cube "${cube.name}" is running.`);
    }
    if (ctx.format === "json") printJson(io, { ...completed, ...(cube ? { cube } : {}), changed: true });
    return 0;
  });
}

/** Every command finds a cube by name: a second cube of that name would make them all refuse it as ambiguous. */
async function refuseTakenName(client: CubeApi, name: string): Promise<void> {
  const taken = (await client.listCubes()).filter((c) => c.state !== "deleted" && c.name === name);
  if (taken.length === 0) return;
  const which = taken.map((c) => `${c.id}, ${c.state}`).join("; ");
  throw new CliError(
    "cube_name_taken",
    `a cube named "${name}" already exists in this space (${which}): nothing was uploaded; choose another --name, or delete that cube first`,
  );
}

type Config = { vcpus: number; ramMb: number; diskLimitGb: number; imageId: string };
const shownConfig = (c: Config): string => `${c.vcpus} vCPU / ${c.ramMb / 1024} GB RAM / ${c.diskLimitGb} GB disk (${c.imageId})`;
const FLAGS = { vcpus: "--vcpu", ramMb: "--ram-gb", diskLimitGb: "--disk-gb" } as const;

/**
 * The new cube's size and image. The API reads none from an archive (the import's complete takes them from the client), so the archive's are those of
 * the backup it was downloaded from: the backup of this space with its byte count. Flags win, and differing from the archive's is a warning; without
 * the backup, the size flags are required.
 */
async function archiveConfig(client: CubeApi, ctx: UploadContext, bytes: number, io: CliIo): Promise<Config> {
  const backups = await client
    .listBackups()
    .catch((e: unknown) => (isCubeApiError(e) && (e.status === 403 || e.status === 404) ? [] : Promise.reject(e)));
  const sizes = new Map<string, { config: Config; backup: string }>();
  for (const b of backups) {
    const c = b.config;
    if (b.sizeBytes !== bytes || !c?.vcpus || !c.ramMb || !c.diskLimitGb || !c.imageId) continue;
    const config = { vcpus: c.vcpus, ramMb: c.ramMb, diskLimitGb: c.diskLimitGb, imageId: c.imageId };
    sizes.set(shownConfig(config), { config, backup: b.name });
  }
  // Several backups of this byte count but different sizes: not a guess.
  const origin = sizes.size === 1 ? [...sizes.values()][0] : undefined;
  const given = { vcpus: ctx.vcpu, ramMb: ctx.ramGb === undefined ? undefined : ctx.ramGb * 1024, diskLimitGb: ctx.diskGb };
  const size = (key: keyof typeof FLAGS): number | undefined => given[key] ?? origin?.config[key];
  const missing = (Object.keys(FLAGS) as (keyof typeof FLAGS)[]).filter((key) => size(key) === undefined).map((key) => FLAGS[key]);
  if (missing.length > 0) {
    const why =
      sizes.size > 1
        ? `${sizes.size} backups of different sizes have its ${bytes} bytes`
        : `no backup of this space has its ${bytes} bytes`;
    throw new CliError(
      "upload_size_unknown",
      `the size of the cube ${ctx.archive} was made from is not known (the API reads none from an archive, and ${why}): pass ${missing.join(", ")}`,
    );
  }
  const config = {
    vcpus: size("vcpus") as number,
    ramMb: size("ramMb") as number,
    diskLimitGb: size("diskLimitGb") as number,
    imageId: ctx.image ?? origin?.config.imageId ?? DEFAULT_IMAGE,
  };
  if (origin === undefined) return config;
  const from = `${ctx.archive} was made from a ${shownConfig(origin.config)} cube (backup "${origin.backup}")`;
  if (shownConfig(config) === shownConfig(origin.config)) say(io, { ...ctx, format: "json" }, `${from}: the new cube gets the same.`);
  else writeLine(io.stderr, escapeText(`warning: ${from}, but the new cube gets ${shownConfig(config)}, as the flags ask.`));
  return config;
}

async function archiveSize(file: string, shown: string): Promise<number> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new CliError("archive_missing", `cannot read ${shown}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
  });
  if (!info.isFile()) throw new CliError("archive_not_file", `${shown} is not a file`);
  const size = info.size;
  if (size < IMPORT_MIN_BYTES)
    throw new CliError("archive_too_small", `${shown} is ${size} bytes; a .cube archive is at least 1 MiB (${IMPORT_MIN_BYTES} bytes)`);
  return size;
}

function publicKey(ctx: UploadContext, io: CliIo): string {
  const given = ctx.sshKey ?? io.env.CUBE_SSH_PUBLIC_KEY;
  if (given === undefined || given.trim() === "") {
    throw new CliError(
      "no_ssh_key",
      "no SSH key for the new cube: pass --ssh-key ~/.ssh/id_ed25519.pub (or set CUBE_SSH_PUBLIC_KEY), or --keep-ssh-keys to keep the archive's own",
    );
  }
  const key = given.trim();
  if (SSH_KEY_PATTERN.test(key)) return key;
  const read = tryOr(() => readRegularText(isAbsolute(key) ? key : resolve(ctx.cwd, key), SSH_PUBLIC_KEY_FILE).trim(), undefined);
  if (read === undefined) throw new CliError("bad_ssh_key", `--ssh-key: "${given}" is neither an OpenSSH public key nor a readable file`);
  if (!SSH_KEY_PATTERN.test(read))
    throw new CliError("bad_ssh_key", `--ssh-key: ${given} does not hold an OpenSSH public key (ssh-ed25519 AAAA…)`);
  return read;
}
