/**
 * `cubeform upload ARCHIVE.cube --name NAME`: brings a machine in as a new cube from a .cube
 * archive (the API's import: multipart upload, then the cube boots). Not to be confused with
 * `cubeform import`, which writes a YAML file describing the live space.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { SSH_PUBLIC_KEY_FILE } from "../../desired/limits.js";
import { readRegularText } from "../../system/files.js";
import { newIdempotencyKey } from "../../client/keys.js";
import { IMPORT_MIN_BYTES, SSH_KEY_PATTERN, type Cube } from "../../schema/api.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { formatBytes, progressLine } from "../progress.js";
import { printJson, say, withApi, type Day2Context } from "./day2.js";
import { waitForState } from "./cube.js";

export interface UploadContext extends Day2Context {
  archive: string;
  name: string;
  /** A public key file, or the key itself; else CUBE_SSH_PUBLIC_KEY. */
  sshKey?: string;
  /** Keep the archive's own authorized_keys (sshKeyMode keep). */
  keepSshKeys: boolean;
  vcpu: number;
  ramGb: number;
  diskGb: number;
  image: string;
  region?: string;
  concurrency: number;
  /** On failure or Ctrl-C, leave the import in place instead of canceling it. */
  keep: boolean;
  wait: boolean;
  timeoutMs: number;
  intervalMs: number;
}

export async function runUpload(ctx: UploadContext, io: CliIo): Promise<number> {
  const file = isAbsolute(ctx.archive) ? ctx.archive : resolve(ctx.cwd, ctx.archive);
  const size = await archiveSize(file, ctx.archive);
  const sshPublicKey = ctx.keepSshKeys ? null : publicKey(ctx, io);
  return withApi(ctx, io, async (client) => {
    let importId = "";
    const progress = progressLine(io, `uploading ${ctx.archive}`);
    let completed;
    try {
      completed = await client.importArchive(
        file,
        { name: ctx.name, sshKeyMode: ctx.keepSshKeys ? "keep" : "replace", ...(sshPublicKey ? { sshPublicKey } : {}), ...(ctx.region ? { region: ctx.region } : {}) },
        {
          idempotencyKey: newIdempotencyKey(),
          config: { vcpus: ctx.vcpu, ramMb: ctx.ramGb * 1024, diskLimitGb: ctx.diskGb, imageId: ctx.image },
          concurrency: ctx.concurrency,
          keep: ctx.keep,
          ...(io.signal ? { signal: io.signal } : {}),
          onStarted: (started) => {
            importId = started.importId;
            writeLine(io.stderr, `import ${started.importId}: ${started.parts.length} part${started.parts.length === 1 ? "" : "s"} of ${formatBytes(started.chunkSizeBytes)}, ${ctx.concurrency} at a time`);
          },
          onProgress: (p) => progress.update(p),
        },
      );
    } catch (error) {
      if (!importId) throw error;
      const what = ctx.keep ? `import ${importId} was kept (--keep); cancel it with the API's DELETE or let it expire` : `import ${importId} was canceled; nothing was created`;
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
    if (ctx.format === "json") printJson(io, { ...completed, ...(cube ? { cube } : {}) });
    return 0;
  });
}

async function archiveSize(file: string, shown: string): Promise<number> {
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError("archive_not_file", `${shown} is not a file`);
    size = info.size;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError("archive_missing", `cannot read ${shown}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
  if (size < IMPORT_MIN_BYTES) throw new CliError("archive_too_small", `${shown} is ${size} bytes; a .cube archive is at least 1 MiB (${IMPORT_MIN_BYTES} bytes)`);
  return size;
}

function publicKey(ctx: UploadContext, io: CliIo): string {
  const given = ctx.sshKey ?? io.env.CUBE_SSH_PUBLIC_KEY;
  if (given === undefined || given.trim() === "") {
    throw new CliError("no_ssh_key", "no SSH key for the new cube: pass --ssh-key ~/.ssh/id_ed25519.pub (or set CUBE_SSH_PUBLIC_KEY), or --keep-ssh-keys to keep the archive's own");
  }
  let key = given.trim();
  if (!SSH_KEY_PATTERN.test(key)) {
    const path = isAbsolute(key) ? key : resolve(ctx.cwd, key);
    try {
      key = readRegularText(path, SSH_PUBLIC_KEY_FILE).trim();
    } catch {
      throw new CliError("bad_ssh_key", `--ssh-key: "${given}" is neither an OpenSSH public key nor a readable file`);
    }
    if (!SSH_KEY_PATTERN.test(key)) throw new CliError("bad_ssh_key", `--ssh-key: ${given} does not hold an OpenSSH public key (ssh-ed25519 AAAA…)`);
  }
  return key;
}
