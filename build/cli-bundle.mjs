/**
 * Bundles the CLI (reconciler/main.ts and everything it imports, dependencies included) with
 * esbuild into dist/cli: main.cjs, which bin/cubeform.js loads, plus chunks/. Start-up is
 * module loading: from dist/ (tsc output) `cubeform validate` reads, resolves and compiles ~110
 * files (zod alone is ~95), bundled about 13. Code splitting keeps the commands lazy: each
 * command module that reconciler/commands/index.ts loads with import() is its own chunk, and
 * the code several commands share is in shared chunks, so a run still loads only what its
 * command needs (test/reconciler/commands.lazy.test.ts). Splitting goes by module, not by what is used: a folder's door that
 * re-exports the whole folder puts all of it in the chunks of every command that imports the door, even with "sideEffects": false
 * (esbuild 0.28), hence the light doors that start-up enters by (engine/light.ts, client/light.ts).
 *
 * The chunks are CommonJS scripts (asScript), which bin/bundle-loader.js runs with node:vm to keep V8's code cache of each
 * (why, with the figures: bin/bundle-loader.js). Nothing here edits esbuild's output text but the ASCII escapes of comments;
 * test/reconciler/cli-bundle.test.ts checks the chunks against the pinned esbuild. main.cjs starts with
 * `// cubeform-bundle ID`: the hash of every file of the bundle, which the code cache is keyed by.
 *
 * dist/ stays the library (package exports) and the Pulumi provider: Pulumi serializes the
 * provider's functions by their modules, which must not be bundled.
 *
 *   node build/cli-bundle.mjs [OUT_DIR]     # default dist/cli (run by `npm run build`)
 *
 * Each chunk starts with one `// path` line per source module it holds (the lazy-loading test reads them).
 */
import { createHash } from "node:crypto";
import http2 from "node:http2";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, transform } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * zod's index exports every locale (64 modules, half the bundled zod) as `z.locales`; the CLI
 * uses only the English messages zod installs by default. This keeps `locales.en` alone.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), "../locales/index.js"), namespace: "zod-english-only" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: `export { default as en } from "./en.js";`,
      resolveDir: dirname(args.path),
    }));
  },
};

/** reconciler/version.ts reads package.json at run time; the bundle has the version written in. */
const versionWrittenIn = {
  name: "version-written-in",
  setup(b) {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    b.onLoad({ filter: /[\\/]reconciler[\\/]version\.ts$/ }, () => ({
      contents: `export const VERSION = ${JSON.stringify(version)};`,
      loader: "ts",
    }));
  },
};

/**
 * commander requires node:child_process at its start, for executable subcommands, which the
 * CLI has none of; loading it (and dgram, net's sockets…) is a few ms of every start-up. Here
 * it is required the first time commander uses it.
 */
const childProcessWhenUsed = {
  name: "child-process-when-used",
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: "child_process", namespace: "child-process-when-used" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "child-process-when-used" }, () => ({
      contents: `let loaded; module.exports = new Proxy({}, { get: (_, key) => (loaded ??= require("node:child_process"))[key] });`,
      loader: "js",
    }));
  },
};

/**
 * undici's client-h2 requires node:http2 at its start, for HTTP/2, which the CLI never asks for (allowH2 is off); node:http2 loads
 * node:tls with it, ~5 ms of every command that connects. Here client-h2 gets the constants it reads when loaded (HTTP/2's header
 * names and error codes, taken from this Node's node:http2 at build time) and node:http2 the first time it connects.
 */
const http2WhenUsed = {
  name: "http2-when-used",
  setup(b) {
    b.onResolve({ filter: /^node:http2$/ }, (args) =>
      /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/.test(args.importer)
        ? { path: args.importer, namespace: "http2-when-used" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "http2-when-used" }, (args) => ({
      contents: http2StandIn(readFileSync(args.path, "utf8")),
      loader: "js",
    }));
  },
};

/** The stand-in module: the constants client-h2 destructures (`constants: { … } = http2`), and connect() from node:http2 itself. */
export function http2StandIn(clientH2) {
  const names = /constants:\s*\{([^}]*)\}\s*\}\s*=\s*http2\b/
    .exec(clientH2)?.[1]
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  if (!names?.length || names.some((name) => http2.constants[name] === undefined))
    throw new Error("undici's client-h2 no longer reads node:http2's constants as http2-when-used expects");
  const constants = Object.fromEntries(names.map((name) => [name, http2.constants[name]]));
  return `let loaded; module.exports = { constants: ${JSON.stringify(constants)}, connect: (...args) => (loaded ??= require("node:http2")).connect(...args) };`;
}

/**
 * undici's index requires every module undici has (fetch, WebSocket, caches, mocks…), and its cookie module makes Node load its
 * own copy of undici: ~55 ms of every command that connects. In the bundle the index is what the CLI imports from "undici"
 * (the names of client/'s value imports) alone, taken from the index's own lines, with the request API it adds to dispatchers.
 */
const undiciOnlyWhatIsUsed = {
  name: "undici-only-what-is-used",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]undici[\\/]index\.js$/ }, (args) => ({
      contents: undiciIndexOf(readFileSync(args.path, "utf8"), undiciNamesUsed()),
      loader: "js",
      resolveDir: dirname(args.path),
    }));
  },
};

/** The names client/ imports from "undici" as values. */
function undiciNamesUsed() {
  const names = new Set();
  for (const file of readdirSync(join(ROOT, "client")).filter((f) => f.endsWith(".ts"))) {
    for (const [, list] of readFileSync(join(ROOT, "client", file), "utf8").matchAll(/^import \{([^}]*)\} from "undici";$/gm)) {
      for (const name of list
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n && !n.startsWith("type ")))
        names.add(name);
    }
  }
  return [...names].sort();
}

/** undici's index with only `names` (and the request API every dispatcher gets); throws when the index no longer reads as expected. */
export function undiciIndexOf(index, names) {
  const lines = ["api", "Dispatcher", ...names.filter((n) => n !== "Dispatcher")].map((name) => {
    const line = new RegExp(`^const ${name} = require\\('[^']+'\\)$`, "m").exec(index)?.[0];
    if (line === undefined) throw new Error(`undici's index no longer requires ${name} as undici-only-what-is-used expects`);
    return line;
  });
  if (!/^Object\.assign\(Dispatcher\.prototype, api\)$/m.test(index))
    throw new Error("undici's index no longer adds its API to Dispatcher as undici-only-what-is-used expects");
  return `${lines.join("\n")}\nObject.assign(Dispatcher.prototype, api)\nmodule.exports = { ${[...new Set(["Dispatcher", ...names])].join(", ")} };\n`;
}

/** Writes the bundle into outDir (emptied first); returns esbuild's metafile. */
export async function bundleCli(outDir = join(ROOT, "dist", "cli")) {
  rmSync(outDir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ["reconciler/main.ts"],
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    chunkNames: "chunks/[name]-[hash]",
    outExtension: { ".js": ".cjs" },
    // Dependencies are bundled, undici too: in the bundle it is read from the code cache like the rest (~70 ms of a `cube list`).
    plugins: [zodEnglishOnly, versionWrittenIn, childProcessWhenUsed, http2WhenUsed, undiciOnlyWhatIsUsed],
    metafile: true,
    write: false,
    logLevel: "warning",
  });
  const files = [];
  for (const output of result.outputFiles) {
    const name = relative(outDir, output.path);
    const modules = Object.keys(result.metafile.outputs[relative(ROOT, output.path)]?.inputs ?? {}).map((path) =>
      path.replace(/^[\w-]+:/, ""),
    );
    const text = `${modules.map((path) => `// ${asciiOnly(path)}\n`).join("")}${CHUNK_WRAPPER[0]}${await asScript(output.text, name)}${CHUNK_WRAPPER[1]}`;
    // bin/bundle-loader.js reads the chunks as Latin-1, which is quicker than UTF-8 and the same for ASCII.
    if (/[^\x00-\x7f]/.test(text)) throw new Error(`${name}: a non-ASCII character is left in the chunk`);
    files.push({ name, text });
  }
  const id = createHash("sha256");
  for (const file of files.sort((a, b) => (a.name < b.name ? -1 : 1))) id.update(`${file.name}\0${file.text}\0`);
  for (const file of files) {
    const path = join(outDir, file.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.name === "main.cjs" ? `// cubeform-bundle ${id.digest("hex").slice(0, 20)}\n${file.text}` : file.text);
  }
  return result.metafile;
}

/**
 * A chunk is a script whose value is its CommonJS module function, as bin/bundle-loader.js calls
 * it. Written into the file, the loader compiles the text it read as it is: no copy of every
 * chunk made with the wrapper around it (~0.7 MB for `cubeform validate`, one young-generation GC).
 * The wrapper opens on the code's first line, so stack traces keep the file's line numbers.
 */
export const CHUNK_WRAPPER = ["(function (exports, require, module, __filename, __dirname, __importMetaUrl) {", "\n})"];

/**
 * One ESM chunk as a CommonJS script body for bin/bundle-loader.js: `require` resolves the
 * other chunks, `import.meta.url` is the loader's `__importMetaUrl`. import() becomes require()
 * in a promise (a script run by node:vm has no module loader for import()).
 */
async function asScript(esm, name) {
  const { code } = await transform(esm, {
    format: "cjs",
    platform: "node",
    target: "node20",
    supported: { "dynamic-import": false },
    define: { "import.meta.url": "__importMetaUrl" },
    logLevel: "warning",
  });
  // Whitespace and syntax minified (names kept, so stack traces still name every function):
  // V8 reads and deserializes a smaller script, ~1 ms of `cubeform validate`.
  const { code: minified } = await transform(code, { minifyWhitespace: true, minifySyntax: true, target: "node20", logLevel: "warning" });
  if (/\bimport\(\s*["'`]/.test(minified.replace(/^\s*\/\/.*$/gm, "")))
    throw new Error(`${name}: an import() is left in the CommonJS chunk`);
  // esbuild escapes every non-ASCII character of the code (charset "ascii") but not of the
  // comments it keeps: escaped too, the chunk is one-byte text, which V8 keeps and scans faster.
  return asciiOnly(minified);
}

/** Every non-ASCII character as a \uXXXX escape (esbuild leaves them in the comments it keeps; paths may have them). */
function asciiOnly(text) {
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await bundleCli(process.argv[2]);
}
