/**
 * A large file's load, kept on disk between runs: parsing and checking a 10,000-cube file is most of a plan's own time, and
 * plans repeat on the same file (plan then apply, drift checks). An entry is used only when all it came from is unchanged: the
 * file's text, the files it refers to, each `${env:NAME}` it resolved, whether each password's variable is set, the target
 * names, the path and cubeform's build. It holds no value of the environment (references and a salted digest, env.ts).
 *
 * Only files of MIN_CACHED_BYTES or more that load cleanly are kept, one entry per path and target list (another build of
 * cubeform replaces it), readable by the user alone; entries unused for 30 days are removed. A cache that fails is only a
 * slower run. CUBEFORM_LOAD_CACHE=off turns it off; CUBEFORM_DEBUG_LOAD=1 traces it on stderr.
 *
 * The file's text is known unchanged by its digest, or, without reading it, by its stat (FileStamp): git's rule for a clean
 * work tree. A plan of an unchanged 10,000-cube file then neither reads nor hashes its 3.5 MB.
 */
import { nodeCrypto } from "../system/builtins.js";
import { readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import * as z from "zod/mini";
import type { DesiredState } from "../engine/types.js";
import { userDir } from "../system/dirs.js";
import { PRIVATE_FILE, readRegularText, tryOr, writeFileAtomicSync } from "../system/files.js";
import { ANY_REFERENCED_FILE, LOAD_CACHE_ENTRY } from "./limits.js";
import { changedEnv, sealEnv, withReferences, withValues, type Env, type SealedEnv } from "./env.js";
import { isInside } from "./confine.js";
import type { Position } from "./errors.js";

export const MIN_CACHED_BYTES = 64 * 1024;
const UNUSED_FOR_MS = 30 * 24 * 3600 * 1000;
const FORMAT = 4;
/** How old a file's last change must be for its stat to stand for its text: a later write cannot share its timestamp then. */
export const STAMP_SETTLED_MS = 3_000;

/** What a load answers besides its file name and locator: what the cache keeps. */
export interface KeptLoad {
  desired: DesiredState;
  /** Environment variables that hold secrets (basic-auth passwords), by name. */
  secretEnvNames: string[];
  /** Variables whose values the file's `${env:…}` references were replaced by: a file cubeform writes keeps the references (env.ts). */
  envNames: string[];
  /** Where each declared cube starts in the file, by name (with targets: the targeted cubes). */
  cubePositions: Record<string, Position>;
  /** The name of every cube the file declares, in the file's order (targeted or not). */
  cubeNames: string[];
}

/** Which load an entry is for. */
export interface LoadKey {
  file: string;
  absPath: string;
  targets?: readonly string[];
}

/** What the entry's load came from besides the file's text. */
export interface LoadInputs {
  env: Env;
  /** The referenced files read, by absolute path, with their text. */
  reads: ReadonlyMap<string, string>;
  /** The file's stamp, taken before its text was read. */
  stamp?: FileStamp;
}

/** A file's text as the load has it: its bytes (or standard input's text), read when first asked for; its stamp if it has one. */
export interface LoadSource {
  text: () => Source;
  stamp?: FileStamp;
}

/**
 * What stat says of a file, when that can stand for its text: device, inode, size, and the times of its last write and of its
 * last change (ctime, which no user tool sets and every write moves). DiskLoadCache.stamp takes it before the file is read.
 */
export interface FileStamp {
  id: string;
  size: number;
}

const Header = z.object({
  format: z.literal(FORMAT),
  /** The build of cubeform that made it: what it kept may differ for another. */
  build: z.string(),
  /** The load it is for (LoadKey): the entry's name is a checksum of it. */
  key: z.string(),
  /** The file's text: its digest, and the stamp it had when read (if settled). */
  source: z.string(),
  stamp: z.optional(z.string()),
  /** The body's checksum: a damaged entry is a miss. */
  body: z.string(),
  env: z.object({ salt: z.string(), digests: z.record(z.string(), z.string()) }),
  /** Variables that must be set (basic-auth passwords): never their values. */
  set: z.array(z.string()),
  files: z.record(z.string(), z.string()),
});
type Header = z.infer<typeof Header>;

export class DiskLoadCache {
  constructor(
    private readonly dir: string,
    private readonly build: string,
    private readonly trace: (line: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The file's stamp, for a file whose last change is STAMP_SETTLED_MS old: a write after the stat then has a later ctime, even
   * on a file system with coarse timestamps (git's "racy" rule). Taken before the file is read: a write while it is read makes
   * the stamp differ next time.
   */
  stamp(absPath: string): FileStamp | undefined {
    const stats = tryOr(() => statSync(absPath, { bigint: true }), undefined);
    if (stats === undefined || !stats.isFile() || Number(stats.ctimeMs) > this.now() - STAMP_SETTLED_MS) return undefined;
    return { id: `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`, size: Number(stats.size) };
  }

  /** undefined when turned off, or when the code that runs has no build id (not the bundled CLI). */
  static forRun(env: Env, build: string | undefined, stderr?: NodeJS.WritableStream): DiskLoadCache | undefined {
    if (build === undefined || /^(off|0|false|no)$/i.test(env.CUBEFORM_LOAD_CACHE ?? "")) return undefined;
    const trace = env.CUBEFORM_DEBUG_LOAD && stderr ? (line: string) => void stderr.write(`cubeform: load cache: ${line}\n`) : undefined;
    return new DiskLoadCache(join(userDir(env, "cache"), "load-cache"), build, trace);
  }

  /** `root`: a checkout's real path; the files the entry's load read must still be inside it (a later commit may link them out). */
  lookup(key: LoadKey, source: LoadSource, env: Env, root?: string): KeptLoad | undefined {
    if ((source.stamp?.size ?? source.text().length) < MIN_CACHED_BYTES) return undefined;
    const path = this.entryPath(key);
    let text: string;
    try {
      text = readRegularText(path, LOAD_CACHE_ENTRY);
    } catch {
      this.trace(`none for ${key.file}`);
      return undefined;
    }
    const split = text.indexOf("\n");
    const header = split < 0 ? undefined : Header.safeParse(parseJson(text.slice(0, split)));
    if (!header?.success || header.data.key !== keyText(key)) return this.damaged(key);
    const byStat = source.stamp !== undefined && header.data.stamp === source.stamp.id;
    const changed = this.changeSince(header.data, byStat ? undefined : source, env, root);
    if (changed !== "unchanged") {
      this.trace(`not used for ${key.file}: the ${changed} changed`);
      return undefined;
    }
    const body = text.slice(split + 1);
    const kept = header.data.body === checksum(body) ? keptOf(parseJson(body)) : undefined;
    if (kept === undefined) return this.damaged(key);
    this.trace(`used for ${key.file} (${path}; the file unchanged by its ${byStat ? "stat" : "digest"})`);
    // Kept while the file was fresh, or its stat has changed since (a touch): the next run knows it by its stat.
    if (!byStat && source.stamp !== undefined) this.write(path, [`${JSON.stringify({ ...header.data, stamp: source.stamp.id })}\n`, body]);
    return withValues(kept, header.data.env, env);
  }

  /** What differs from when the entry was made, if anything (`source`: the file's text when its stamp did not tell). */
  private changeSince(header: Header, source: LoadSource | undefined, env: Env, root: string | undefined): string {
    if (header.build !== this.build) return "build of cubeform";
    // The file's digest is of its bytes: 3.5 MB at 10,000 cubes neither decoded nor encoded again to be hashed.
    if (source !== undefined && header.source !== sha256(source.text())) return "file";
    return !sameEnv(header, env) ? "environment" : !sameFiles(header.files, root) ? "referenced files" : "unchanged";
  }

  private damaged(key: LoadKey): undefined {
    this.trace(`not used for ${key.file}: damaged`);
    return undefined; // the full load writes it again
  }

  /** Keeps the load for the next run, a few hundred cubes at a time: never the whole text at once (~18 MB at 30,000 cubes, and as much again to write). */
  store(key: LoadKey, source: Source, inputs: LoadInputs, loaded: KeptLoad): void {
    if (source.length < MIN_CACHED_BYTES) return;
    const env = sealEnv(loaded.envNames, inputs.env);
    const chunks = [...keptJsonChunks(withReferences(loaded, env, inputs.env))];
    const header: Header = {
      format: FORMAT,
      build: this.build,
      key: keyText(key),
      source: sha256(source),
      ...(inputs.stamp ? { stamp: inputs.stamp.id } : {}),
      body: checksum(chunks),
      env,
      set: loaded.secretEnvNames,
      files: fileHashes(inputs.reads),
    };
    const path = this.entryPath(key);
    if (this.write(path, [`${JSON.stringify(header)}\n`, ...chunks])) {
      this.trace(`kept ${key.file} for the next run (${path})`);
      this.removeUnused();
    }
  }

  /** Writes an entry atomically; false when it cannot. */
  private write(path: string, chunks: Iterable<string>): boolean {
    try {
      writeFileAtomicSync(path, chunks, { mode: PRIVATE_FILE });
      return true;
    } catch (error) {
      this.trace(`not written: ${(error as Error).message}`);
      return false;
    }
  }

  private entryPath(key: LoadKey): string {
    const text = keyText(key);
    return join(this.dir, `${checksum(text)}-${text.length}.json`);
  }

  private removeUnused(): void {
    const now = Date.now();
    for (const name of readdirSync(this.dir)) {
      const path = join(this.dir, name);
      try {
        if (now - statSync(path).mtimeMs > UNUSED_FOR_MS) rmSync(path, { force: true });
      } catch {
        // another run removed it
      }
    }
  }
}

const CUBES_PER_CHUNK = 500;

/** JSON.stringify(kept), its cubes a few hundred at a time. */
function* keptJsonChunks(kept: KeptLoad): Generator<string> {
  const { desired, ...rest } = kept;
  const { cubes, ...head } = desired;
  const headJson = JSON.stringify(head);
  yield `${JSON.stringify(rest).slice(0, -1)},"desired":${headJson.slice(0, -1)}${headJson === "{}" ? "" : ","}"cubes":[`;
  for (let start = 0; start < cubes.length; start += CUBES_PER_CHUNK) {
    const json = cubes.slice(start, start + CUBES_PER_CHUNK).map((cube) => JSON.stringify(cube));
    yield `${start === 0 ? "" : ","}${json.join(",")}`;
  }
  yield "]}}";
}

/** The body's outline checked; its digest in the header vouches for the rest. A zod parse of every cube cost ~45 ms of a 10,000-cube plan. */
function keptOf(value: unknown): KeptLoad | undefined {
  const kept = value as Record<keyof KeptLoad, unknown> | undefined;
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const outlined = isObject(kept) && isObject(kept.desired) && Array.isArray(kept.desired.cubes) && isObject(kept.cubePositions);
  return outlined && [kept.secretEnvNames, kept.envNames, kept.cubeNames].every(Array.isArray) ? (kept as unknown as KeptLoad) : undefined;
}

const parseJson = (text: string): unknown => tryOr(() => JSON.parse(text) as unknown, undefined);

const sha256 = (text: string | Buffer): string => nodeCrypto().createHash("sha256").update(text).digest("hex");

/** An entry's name, and the check of its body: against a mix-up or damage, not an attacker (crc32, quicker than a digest). */
function checksum(texts: string | Iterable<string>): string {
  let crc = 0;
  for (const text of typeof texts === "string" ? [texts] : texts) crc = crc32(text, crc);
  return crc.toString(16).padStart(8, "0");
}

const keyText = (key: LoadKey): string => [key.file, key.absPath, ...(key.targets ?? [])].join("\0");

/** A desired-state file as read (bytes), or standard input's text. */
type Source = string | Buffer;

function sameEnv(header: Header, env: Env): boolean {
  return changedEnv(header.env as SealedEnv, env).length === 0 && header.set.every((name) => env[name] !== undefined);
}

function fileHashes(reads: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...reads].map(([path, text]) => [path, sha256(text)]));
}

function sameFiles(kept: Record<string, string>, root: string | undefined): boolean {
  const inside = (path: string): boolean => root === undefined || tryOr(() => isInside(root, realpathSync(path)), false);
  return Object.entries(kept).every(
    ([path, hash]) => inside(path) && tryOr(() => sha256(readRegularText(path, ANY_REFERENCED_FILE)) === hash, false),
  );
}
