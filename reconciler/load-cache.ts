/**
 * A large file's load, kept on disk between runs: parsing and checking a 10,000-cube file is
 * most of a plan's own time, and a plan is often run on the same file again (plan, then apply;
 * a drift check every few minutes). The kept load is used only when everything it came from is
 * unchanged: the file's text (sha256), the files it refers to (userData, sshPublicKey files),
 * the value of every `${env:NAME}` it resolved (or, for a basic-auth password, only whether the
 * variable is set: the password itself is never read, kept or hashed), the --target names, the
 * path, and the build of cubeform that made it. Anything else is a miss and a full load.
 *
 * Only files of MIN_CACHED_BYTES or more, and only files that load without a problem, are
 * kept: one entry per file path (and --target list) in $XDG_CACHE_HOME/cubeform/load-cache (else ~/.cache/...),
 * readable by the user alone; an entry not written for 30 days is removed when another is
 * written. A cache that cannot be read or written is only a slower run. CUBEFORM_LOAD_CACHE=off
 * turns it off; CUBEFORM_DEBUG_LOAD=1 says on stderr what it did.
 */
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { DesiredState } from "../engine/types.js";
import type { Position } from "./render/types.js";

export const MIN_CACHED_BYTES = 64 * 1024;
const UNUSED_FOR_MS = 30 * 24 * 3600 * 1000;
const FORMAT = 1;

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
  env: Record<string, string | null>;
  files: Record<string, string>;
}

export class DiskLoadCache {
  constructor(
    private readonly dir: string,
    private readonly build: string,
    private readonly trace: (line: string) => void = () => {},
  ) {}

  /** undefined when turned off, or when the code that runs has no build id (not the bundled CLI). */
  static forRun(env: Record<string, string | undefined>, build: string | undefined, stderr?: NodeJS.WritableStream): DiskLoadCache | undefined {
    if (build === undefined || /^(off|0|false|no)$/i.test(env.CUBEFORM_LOAD_CACHE ?? "")) return undefined;
    const base = env.XDG_CACHE_HOME?.trim() || join(env.HOME?.trim() || homedir(), ".cache");
    const trace = env.CUBEFORM_DEBUG_LOAD && stderr ? (line: string) => void stderr.write(`cubeform: load cache: ${line}\n`) : undefined;
    return new DiskLoadCache(join(base, "cubeform", "load-cache"), build, trace);
  }

  /** `source`: the file's bytes, or its text (standard input): the same hash when the bytes are UTF-8. */
  lookup(key: LoadKey, source: Source, env: Record<string, string | undefined>): KeptLoad | undefined {
    if (source.length < MIN_CACHED_BYTES) return undefined;
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
      const changed = header.format !== FORMAT ? "format" : header.source !== sha256(source) ? "file" : !sameEnv(header.env, env) ? "environment" : !sameFiles(header.files) ? "referenced files" : undefined;
      if (changed !== undefined) {
        this.trace(`not used for ${key.file}: the ${changed} changed`);
        return undefined;
      }
      const kept = JSON.parse(text.slice(split + 1)) as KeptLoad;
      this.trace(`used for ${key.file} (${path})`);
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
    const header: Header = { format: FORMAT, source: sha256(source), env: envHashes(inputs), files: fileHashes(inputs.reads) };
    const path = this.entryPath(key);
    const temp = `${path}.${process.pid}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const fd = openSync(temp, "w", 0o600);
      try {
        writeSync(fd, `${JSON.stringify(header)}\n`);
        for (const chunk of keptJsonChunks(loaded)) writeSync(fd, chunk);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, path);
      this.trace(`kept ${key.file} for the next run (${path})`);
      this.removeUnused();
    } catch (error) {
      rmSync(temp, { force: true });
      this.trace(`not written: ${(error as Error).message}`);
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

/** A file's bytes, or a text (its UTF-8 bytes are hashed). */
type Source = string | Buffer;

const sha256 = (text: Source): string => createHash("sha256").update(text).digest("hex");

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
