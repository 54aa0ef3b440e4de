/**
 * A large file's load, kept on disk between runs: parsing and checking a 10,000-cube file is
 * most of a plan's own time, and a plan is often run on the same file again (plan, then apply;
 * a drift check every few minutes). The kept load is used only when everything it came from is
 * unchanged: the file's text (sha256), the files it refers to (userData, sshPublicKey files),
 * the value of every `${env:NAME}` it resolved (or, for a basic-auth password, only whether the
 * variable is set: the password itself is never read, kept or hashed), the --target names, the
 * path, and the build of cubeform that made it. Anything else is a miss and a full load.
 *
 * Whether the file's text is unchanged is first asked of its size, times, inode and device
 * (as git's index does): when they are what they were when the entry was written, the file is
 * neither read nor hashed (~4 ms of a 10,000-cube plan). They are kept only for a file last
 * changed SETTLED_MS or more before it was read: a write always sets the change time (ctime) to
 * the time of the write, which no one can set back, so a later write cannot leave them as they
 * were. When they differ (a touched file, a copy), the text's sha256 decides, as before.
 *
 * Only files of MIN_CACHED_BYTES or more, and only files that load without a problem, are
 * kept: one entry per file path (and --target list) in $XDG_CACHE_HOME/cubeform/load-cache (else ~/.cache/...),
 * readable by the user alone; an entry not written for 30 days is removed when another is
 * written. A cache that cannot be read or written is only a slower run. CUBEFORM_LOAD_CACHE=off
 * turns it off; CUBEFORM_DEBUG_LOAD=1 says on stderr what it did.
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync, type BigIntStats } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { DesiredState } from "../engine/types.js";
import type { Position } from "./errors.js";

export const MIN_CACHED_BYTES = 64 * 1024;
const UNUSED_FOR_MS = 30 * 24 * 3600 * 1000;
const FORMAT = 1;
/** A file changed at least this long before it was read has its size and times kept (see above). */
export const SETTLED_MS = 2_000;

/** What a load answers besides its file name and locator: what the cache keeps. */
export interface KeptLoad {
  desired: DesiredState;
  secretEnvNames: string[];
  cubePositions: Record<string, Position>;
  cubeNames: string[];
}

/** How a load used the environment: a substituted value, or a basic-auth variable that must only be set. */
export type EnvUse = Map<string, "value" | "set">;

/** Which load an entry is for. */
export interface LoadKey {
  file: string;
  absPath: string;
  targets?: readonly string[];
}

/** What the entry's load came from besides the file's text. */
export interface LoadInputs {
  env: Record<string, string | undefined>;
  envUse: EnvUse;
  /** The referenced files read, by absolute path, with their text. */
  reads: ReadonlyMap<string, string>;
}

interface Header {
  format: number;
  source: string;
  /** The file's size, times, inode and device when it was read (absent: the sha256 decides). */
  stat?: string;
  env: Record<string, string | null>;
  files: Record<string, string>;
}

/**
 * A file on disk, read at most once. `readStat` is its stat when it was read, taken before
 * reading: a write after it changes the file's stat, so the stat never stands for newer bytes.
 */
export class DiskFile {
  private read: { bytes: Buffer; stat: BigIntStats } | undefined;

  /** `failed` turns an error of reading into the one to throw. */
  constructor(
    readonly absPath: string,
    private readonly failed: (error: unknown) => Error = (error) => error as Error,
  ) {}

  bytes(): Buffer {
    return this.readOnce().bytes;
  }

  get length(): number {
    return this.readOnce().bytes.length;
  }

  get readStat(): BigIntStats {
    return this.readOnce().stat;
  }

  /** The stat now, without reading the file. */
  currentStat(): BigIntStats {
    return statSync(this.absPath, { bigint: true });
  }

  private readOnce(): { bytes: Buffer; stat: BigIntStats } {
    if (this.read === undefined) {
      try {
        const fd = openSync(this.absPath, "r");
        try {
          const stat = fstatSync(fd, { bigint: true });
          this.read = { stat, bytes: readFileSync(fd) };
        } finally {
          closeSync(fd);
        }
      } catch (error) {
        throw this.failed(error);
      }
    }
    return this.read;
  }
}

export class DiskLoadCache {
  constructor(
    private readonly dir: string,
    private readonly build: string,
    private readonly trace: (line: string) => void = () => {},
    /** The clock that says whether a file has settled (SETTLED_MS). */
    private readonly now: () => number = Date.now,
  ) {}

  /** undefined when turned off, or when the code that runs has no build id (not the bundled CLI). */
  static forRun(env: Record<string, string | undefined>, build: string | undefined, stderr?: NodeJS.WritableStream): DiskLoadCache | undefined {
    if (build === undefined || /^(off|0|false|no)$/i.test(env.CUBEFORM_LOAD_CACHE ?? "")) return undefined;
    const base = env.XDG_CACHE_HOME?.trim() || join(env.HOME?.trim() || homedir(), ".cache");
    const trace = env.CUBEFORM_DEBUG_LOAD && stderr ? (line: string) => void stderr.write(`cubeform: load cache: ${line}\n`) : undefined;
    return new DiskLoadCache(join(base, "cubeform", "load-cache"), build, trace);
  }

  /** `source`: the file, or its text (standard input): the same hash when the file's bytes are UTF-8. */
  lookup(key: LoadKey, source: Source, env: Record<string, string | undefined>): KeptLoad | undefined {
    const current = source instanceof DiskFile ? currentStat(source) : undefined;
    if ((current?.size ?? source.length) < MIN_CACHED_BYTES) return undefined;
    const path = this.entryPath(key);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      this.trace(`none for ${key.file}`);
      return undefined;
    }
    try {
      const split = text.indexOf("\n");
      const header = JSON.parse(text.slice(0, split)) as Header;
      const unchangedStat = current !== undefined && header.stat !== undefined && header.stat === statKey(current);
      const changed =
        header.format !== FORMAT ? "format" : !unchangedStat && header.source !== sha256(contentOf(source)) ? "file" : !sameEnv(header.env, env) ? "environment" : !sameFiles(header.files) ? "referenced files" : undefined;
      if (changed !== undefined) {
        this.trace(`not used for ${key.file}: the ${changed} changed`);
        return undefined;
      }
      const kept = JSON.parse(text.slice(split + 1)) as KeptLoad;
      this.trace(`used for ${key.file} (${unchangedStat ? "unchanged since kept: size and times" : "same content"}; ${path})`);
      // Same text, other stat (touched, copied): kept with the new one, so the next run need not hash.
      const stat = unchangedStat ? undefined : settledStat(source, this.now());
      if (stat !== undefined) this.write(path, () => [`${JSON.stringify({ ...header, stat })}\n`, text.slice(split + 1)]);
      return kept;
    } catch {
      this.trace(`not used for ${key.file}: damaged`);
      return undefined; // the full load writes it again
    }
  }

  /**
   * Keeps the load for the next run, written now (what the load answered, before anything can
   * change it) a few hundred cubes at a time: never the whole text at once (~18 MB at 30,000
   * cubes, and as much again to write it).
   */
  store(key: LoadKey, source: Source, inputs: LoadInputs, loaded: KeptLoad): void {
    if (source.length < MIN_CACHED_BYTES) return;
    const stat = settledStat(source, this.now());
    const header: Header = { format: FORMAT, source: sha256(contentOf(source)), ...(stat ? { stat } : {}), env: envHashes(inputs), files: fileHashes(inputs.reads) };
    const path = this.entryPath(key);
    if (this.write(path, () => [`${JSON.stringify(header)}\n`, ...keptJsonChunks(loaded)])) {
      this.trace(`kept ${key.file} for the next run (${path})`);
      this.removeUnused();
    }
  }

  /** Writes an entry atomically (temp file, then rename); false when it cannot. */
  private write(path: string, chunks: () => Iterable<string>): boolean {
    const temp = `${path}.${process.pid}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const fd = openSync(temp, "w", 0o600);
      try {
        for (const chunk of chunks()) writeSync(fd, chunk);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, path);
      return true;
    } catch (error) {
      rmSync(temp, { force: true });
      this.trace(`not written: ${(error as Error).message}`);
      return false;
    }
  }

  private entryPath(key: LoadKey): string {
    const id = sha256([this.build, key.file, key.absPath, ...(key.targets ?? [])].join("\0")).slice(0, 32);
    return join(this.dir, `${id}.json`);
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

/** A file, or a text (its UTF-8 bytes are hashed). */
type Source = string | DiskFile;

const contentOf = (source: Source): string | Buffer => (typeof source === "string" ? source : source.bytes());

const sha256 = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");

/** What stands for a file's content while it is unchanged. */
const statKey = (stat: BigIntStats): string => [stat.size, stat.mtimeNs, stat.ctimeNs, stat.ino, stat.dev].join(" ");

/** undefined when the file cannot be stat'ed (the sha256 decides). */
function currentStat(file: DiskFile): BigIntStats | undefined {
  try {
    return file.currentStat();
  } catch {
    return undefined;
  }
}

/** The file's stat when it was read, if it had not changed for SETTLED_MS by then (see the top). */
function settledStat(source: Source, nowMs: number): string | undefined {
  if (typeof source === "string") return undefined;
  const stat = source.readStat;
  const lastChangeMs = Number((stat.ctimeNs > stat.mtimeNs ? stat.ctimeNs : stat.mtimeNs) / 1_000_000n);
  return nowMs - lastChangeMs >= SETTLED_MS ? statKey(stat) : undefined;
}

/** A substituted value by its hash; a basic-auth variable by whether it is set (never its value). */
function envHashes({ env, envUse }: LoadInputs): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [name, use] of envUse) {
    const value = env[name];
    out[name] = value === undefined ? null : use === "set" ? "set" : sha256(value);
  }
  return out;
}

function sameEnv(kept: Record<string, string | null>, env: Record<string, string | undefined>): boolean {
  return Object.entries(kept).every(([name, hash]) => {
    const value = env[name];
    if (value === undefined || hash === null) return value === undefined && hash === null;
    return hash === "set" || hash === sha256(value);
  });
}

function fileHashes(reads: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...reads].map(([path, text]) => [path, sha256(text)]));
}

function sameFiles(kept: Record<string, string>): boolean {
  return Object.entries(kept).every(([path, hash]) => {
    try {
      return sha256(readFileSync(path, "utf8")) === hash;
    } catch {
      return false;
    }
  });
}
