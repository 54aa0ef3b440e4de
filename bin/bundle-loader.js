// Runs the bundled CLI (dist/cli, made by build/cli-bundle.mjs: CommonJS chunks) with V8's code
// cache. Each chunk is compiled with node:vm from its cached bytecode when there is one; after
// the run, the chunks that had none (or a stale or damaged one) are cached, with the functions
// the run compiled. Compiling the ~730 KB that `cubeform validate` loads, and the functions its
// first run of every zod check compiles, is most of its start-up.
//
// Why a loader of its own rather than the plain bundle: the start-up bound (`cubeform validate`
// of 10 cubes ≤ 2× `node -e 0`) needs this cache. Node 20 has no module.enableCompileCache (22.1),
// and on Node 22 it measured slower than this loader, which also caches the functions a run
// compiles lazily. Issue 19, process CPU of validate / `node -e 0`, medians of 5 alternating runs
// (`node bench/startup-ab.mjs --runs 5 LABEL=BIN… -- validate -f FLEET_10`): Node 20.20, this
// loader 2.3–2.5×, require() 3.2–3.6×, esbuild's ESM 3.5×; Node 22.23, this loader 2.6×,
// require() 3.6×, with enableCompileCache 3.2× (require() and ESM alike).
//
// The cache lives in $XDG_CACHE_HOME/cubeform/code-cache (else ~/.cache/cubeform/code-cache),
// one directory per bundle (its content hash, on main.cjs's first line), Node version and CPU
// architecture. It is only ever an optimisation: a cache that cannot be read, is damaged
// (checked with a CRC-32 of its own) or is rejected by V8 is ignored and written again; a cache
// that cannot be written is skipped. A directory no run has written to for 30 days is removed
// when another is written. CUBEFORM_CODE_CACHE=off turns it off;
// CUBEFORM_DEBUG_LOAD=1 prints each chunk loaded and what the cache did, on stderr.
"use strict";
const {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = require("node:fs");
const { createRequire } = require("node:module");
const { basename, dirname, isAbsolute, join, relative, resolve, sep } = require("node:path");
const { pathToFileURL } = require("node:url");
const { Script } = require("node:vm");
const { crc32 } = require("node:zlib");

/** A cache file: MAGIC, the CRC-32 of the V8 data, then the data. */
const MAGIC = 0x63666331; // "cfc1"
const HEADER_BYTES = 8;

/**
 * Loads mainFile (dist/cli/main.cjs) and the chunks it requires; answers its exports and
 * saveCodeCache(), to call once the command is done. `v8Flags`: the V8 flags the caller set
 * before loading (V8 rejects a cache made under other flags: each set keeps its own).
 */
function loadBundle(mainFile, env, stderr, v8Flags = "") {
  const root = dirname(mainFile);
  const rootUrl = pathToFileURL(root).href;
  const rootPrefix = `${root}${sep}`;
  const trace = env.CUBEFORM_DEBUG_LOAD ? (line) => stderr.write(`cubeform: ${line}\n`) : () => {};
  // The chunks are ASCII (build/cli-bundle.mjs checks it): read as Latin-1, which makes the
  // same string as UTF-8 would, faster (~0.5 ms of `cubeform validate`).
  const mainSource = readFileSync(mainFile, "latin1");
  const bundleId = /^\/\/ cubeform-bundle (\w+)/.exec(mainSource)?.[1];
  const cacheDir = codeCacheDir(bundleId, env, v8Flags);
  const modules = new Map();
  /** `dir\0specifier` → the chunk's path: the chunks share one folder and require each other ~200 times a run. */
  const resolved = new Map();
  /** The scripts compiled without usable cached data: what saveCodeCache writes. */
  const uncached = [];

  function load(file, source) {
    const known = modules.get(file);
    if (known) return known.exports;
    source ??= readFileSync(file, "latin1");
    const module = { exports: {} };
    modules.set(file, module);
    // Every chunk is below root: its name without path.relative (~1 ms of start-up over the chunks a run loads).
    const name = file.startsWith(rootPrefix) ? file.slice(rootPrefix.length) : relative(root, file);
    const cacheFile = cacheDir && join(cacheDir, `${name.replace(/[\\/]/g, "_")}.v8`);
    const cached = cacheFile ? readCache(cacheFile) : undefined;
    const cachedData = cached === "damaged" ? undefined : cached;
    // The chunk is its module function, wrapper included (build/cli-bundle.mjs CHUNK_WRAPPER).
    const script = new Script(source, { filename: file, cachedData });
    const state = !cacheFile
      ? "off"
      : cached === "damaged"
        ? "damaged"
        : !cachedData
          ? "none"
          : script.cachedDataRejected
            ? "rejected"
            : "used";
    trace(`load ${name} (code cache: ${state})`);
    if (cacheFile && state !== "used") uncached.push({ script, cacheFile });
    let nodeRequire;
    const dir = dirname(file);
    const requireFromChunk = (specifier) => {
      if (specifier.startsWith("./") || specifier.startsWith("../")) {
        const key = `${dir}\0${specifier}`;
        let path = resolved.get(key);
        if (path === undefined) resolved.set(key, (path = resolve(dir, specifier)));
        return load(path);
      }
      // Node's own modules need no resolving; a package (undici, yaml) is found from the chunk.
      if (specifier.startsWith("node:")) return require(specifier);
      nodeRequire ??= createRequire(file);
      return nodeRequire(specifier);
    };
    // The chunks' names are plain ASCII (build/cli-bundle.mjs): no pathToFileURL per chunk.
    const url = `${rootUrl}/${name.replace(/\\/g, "/")}`;
    script.runInThisContext()(module.exports, requireFromChunk, module, file, dir, url);
    return module.exports;
  }

  const exports = load(mainFile, mainSource);
  return {
    exports,
    bundleId,
    saveCodeCache() {
      if (uncached.length === 0) return;
      try {
        mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        for (const { script, cacheFile } of uncached.splice(0)) writeCache(cacheFile, script.createCachedData());
        trace(`code cache written to ${cacheDir}`);
        removeUnused(dirname(cacheDir));
      } catch (error) {
        trace(`code cache not written: ${error.message}`);
      }
    },
  };
}

/** Where this bundle's cache lives; undefined when it is turned off or the bundle has no id. */
function codeCacheDir(bundleId, env, v8Flags) {
  if (!bundleId || /^(off|0|false|no)$/i.test(env.CUBEFORM_CODE_CACHE ?? "")) return undefined;
  const base = xdgCacheHome(env);
  const flags = v8Flags.replace(/[^\w]+/g, "-");
  return join(base, "cubeform", "code-cache", `${bundleId}-node${process.versions.node}-${process.arch}${flags}`);
}

/** $XDG_CACHE_HOME when absolute, else ~/.cache: system/dirs.ts xdgHome(env, "cache"), which this CommonJS loader cannot import (test/system/bundle-loader.rules.test.ts checks they agree). */
function xdgCacheHome(env) {
  const set = env.XDG_CACHE_HOME?.trim();
  if (set && isAbsolute(set)) return set;
  return join(env.HOME?.trim() || require("node:os").homedir(), ".cache");
}

/** Another version's (or Node's) cache that no run has written to for 30 days goes. */
function removeUnused(parent) {
  const before = Date.now() - 30 * 24 * 3600 * 1000;
  for (const name of readdirSync(parent)) {
    const dir = join(parent, name);
    // Another run may be removing it too.
    const modified = statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Infinity;
    if (modified < before) rmSync(dir, { recursive: true, force: true });
  }
}

/** A chunk's V8 data is a few MB at most: a larger file, or one that is not a regular file, is not a cache. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/** The cached V8 data of a file; undefined when there is none, "damaged" when it is not whole. */
function readCache(cacheFile) {
  let bytes;
  try {
    bytes = readRegularFile(cacheFile, MAX_CACHE_BYTES);
  } catch {
    return undefined;
  }
  if (bytes === undefined || bytes.length <= HEADER_BYTES || bytes.readUInt32LE(0) !== MAGIC) return "damaged";
  const data = bytes.subarray(HEADER_BYTES);
  return crc32(data) === bytes.readUInt32LE(4) ? data : "damaged";
}

/**
 * The file's bytes (as many as fstat says it has), or undefined when it is not a regular file or
 * is over maxBytes: the rule of system/files.ts readRegularFile, which this CommonJS loader
 * cannot import. Non-blocking, so a named pipe does not wait for a writer.
 */
function readRegularFile(file, maxBytes) {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > maxBytes) return undefined;
    const bytes = Buffer.allocUnsafe(stats.size);
    let length = 0;
    for (let n = -1; n !== 0 && length < bytes.length; length += n) n = readSync(fd, bytes, length, bytes.length - length, null);
    return bytes.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** Writes whole files only, so a concurrent run reads old or new. */
function writeCache(cacheFile, data) {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(crc32(data), 4);
  writeWhole(cacheFile, Buffer.concat([header, data]));
}

/**
 * system/files.ts writeFileAtomicSync's rules (test/system/bundle-loader.rules.test.ts checks they agree): a new private
 * (0600) file beside the target, renamed over it, so a planted symlink is replaced, never followed.
 */
function writeWhole(path, bytes) {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${require("node:crypto").randomBytes(6).toString("hex")}.tmp`);
  try {
    writeFileSync(temporary, bytes, { flag: "wx", mode: 0o600 });
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

module.exports = { loadBundle, xdgCacheHome, writeWhole };
