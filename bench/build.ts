/**
 * Transpiles the product (schema, client, engine, reconciler, emulator, provider) into
 * bench/.build/dist with TypeScript's transpileModule, the same JavaScript `npm run build`
 * emits minus the type check (a few seconds instead of ~30), bundles the CLI into
 * bench/.build/dist/cli as `npm run build` does (build/cli-bundle.mjs), and adds bin/ (cubeform.js
 * and the bundle's loader) next to it. The benchmarks then time `node bin/cubeform.js …` exactly as a user runs it, from
 * sources as they are in the working tree, without touching the shared dist/.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

export const ROOT = join(import.meta.dirname, "..");
export const BUILD_DIR = join(ROOT, "bench", ".build");
export const BUILT_CLI = join(BUILD_DIR, "bin", "cubeform.js");

const SOURCE_DIRS = ["schema", "client", "engine", "reconciler", "emulator", "provider"];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts") && !name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

/** Returns the number of files written. */
export function buildCli(): number {
  rmSync(BUILD_DIR, { recursive: true, force: true });
  const compilerOptions: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    // ESM out, as NodeNext emits for a "type": "module" package (transpileModule alone
    // cannot see package.json and would pick CommonJS).
    module: ts.ModuleKind.ES2022,
    esModuleInterop: true,
    // Maps (not referenced by the .js) let bench/profile.ts report TypeScript lines.
    sourceMap: true,
  };
  let count = 0;
  for (const dir of SOURCE_DIRS) {
    for (const file of sources(join(ROOT, dir))) {
      const output = ts.transpileModule(readFileSync(file, "utf8"), { compilerOptions, fileName: file });
      const target = join(BUILD_DIR, "dist", relative(ROOT, file)).replace(/\.ts$/, ".js");
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, output.outputText.replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n"));
      if (output.sourceMapText) writeFileSync(`${target}.map`, output.sourceMapText);
      count++;
    }
  }
  execFileSync(process.execPath, [join(ROOT, "build", "cli-bundle.mjs"), join(BUILD_DIR, "dist", "cli")], { stdio: "inherit" });
  mkdirSync(dirname(BUILT_CLI), { recursive: true });
  for (const name of readdirSync(join(ROOT, "bin"))) copyFileSync(join(ROOT, "bin", name), join(dirname(BUILT_CLI), name));
  // The package is ESM ("type": "module"): the copy needs the same marker, and its name,
  // version and package.json export (reconciler/main.ts reads "cubeform/package.json").
  const { name, version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string };
  writeFileSync(
    join(BUILD_DIR, "package.json"),
    JSON.stringify({ name, version, type: "module", exports: { "./package.json": "./package.json" } }),
  );
  return count;
}
