/**
 * Bundles the CLI (reconciler/main.ts and everything it imports, dependencies included) with
 * esbuild into dist/cli: main.js, which bin/cubeform.js imports, plus chunks/. Start-up is
 * module loading: from dist/ (tsc output) `cubeform validate` reads, resolves and compiles ~110
 * files (zod alone is ~95), bundled about 13. Code splitting keeps the commands lazy: each
 * command module that reconciler/commands/index.ts loads with import() is its own chunk, and
 * the code several commands share is in shared chunks, so a run still loads only what its
 * command needs (test/reconciler/commands.lazy.test.ts).
 *
 * dist/ stays the library (package exports) and the Pulumi provider: Pulumi serializes the
 * provider's functions by their modules, which must not be bundled.
 *
 *   node build/cli-bundle.mjs [OUT_DIR]     # default dist/cli (run by `npm run build`)
 *
 * Not minified: the chunks keep their `// path` comments (the lazy-loading test reads them)
 * and stack traces (CUBEFORM_DEBUG=1) stay readable; minifying measured no faster.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * zod's index exports every locale (64 modules, half the bundled zod) as `z.locales`; the CLI
 * uses only the English messages zod installs by default. This keeps `locales.en` alone.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), "../locales/index.js"), namespace: "zod-english-only" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({ contents: `export { default as en } from "./en.js";`, resolveDir: dirname(args.path) }));
  },
};

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
    // Loaded only by the commands that send requests, with import(): bundled, a CommonJS
    // package's import() would yield its default export alone. Node loads it from node_modules.
    external: ["undici"],
    plugins: [zodEnglishOnly],
    // commander and js-yaml are CommonJS: their require("node:events") etc. need a real require.
    banner: { js: `import { createRequire as __cubeformCreateRequire } from "node:module"; const require = __cubeformCreateRequire(import.meta.url);` },
    metafile: true,
    logLevel: "warning",
  });
  return result.metafile;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await bundleCli(process.argv[2]);
}
