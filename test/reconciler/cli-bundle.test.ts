/**
 * The bin runs esbuild's bundle of the CLI turned into CommonJS scripts by esbuild's own
 * transform (build/cli-bundle.mjs), through its node:vm loader (bin/bundle-loader.js, which the
 * start-up bound needs). That holds only for the esbuild the build is pinned to: built with it,
 * every chunk must be a script the loader can compile — no import(), import.meta or ES module
 * syntax left — and the bin must run the fresh build.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLEET_YAML } from "./support/fixtures.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const pinned = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> }).devDependencies
  .esbuild;
const installed = (createRequire(import.meta.url)("esbuild") as { version: string }).version;

describe("the CLI bundle, built with the pinned esbuild", () => {
  const temp = mkdtempSync(join(tmpdir(), "cubeform-cli-bundle-"));
  const cli = join(temp, "dist", "cli");
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  beforeAll(() => {
    const built = spawnSync(process.execPath, [join(ROOT, "build", "cli-bundle.mjs"), cli], { cwd: ROOT, encoding: "utf8" });
    expect(built.status, built.stderr).toBe(0);
    cpSync(join(ROOT, "bin"), join(temp, "bin"), { recursive: true });
  });

  it("is built by the one esbuild version package.json pins", () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed).toBe(pinned);
  });

  it("is made of CommonJS scripts the loader can compile: no import(), import.meta or ES module syntax left", () => {
    const chunks = ["main.cjs", ...readdirSync(join(cli, "chunks")).map((name) => join("chunks", name))];
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      const code = readFileSync(join(cli, chunk), "utf8").replace(/^\/\/.*$/gm, "");
      expect(dynamicImportsIn(chunk, code), chunk).toEqual([]);
      // The chunk is its module function (the loader runs it as it is): an import or export statement left is a SyntaxError here.
      expect(typeof new Script(code, { filename: chunk }).runInNewContext({}), chunk).toBe("function");
    }
  });

  it("runs from the bin: --version, and validate of a fleet file through its lazily loaded chunks", () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(temp, "bin", "cubeform.js"), ...args], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, CUBEFORM_CODE_CACHE: "off" },
      });
    const version = run("--version");
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const validate = run("validate", "-f", FLEET_YAML);
    expect(validate.stderr).toBe("");
    expect(validate.stdout).toMatch(/^ok: \d+ cubes \(.*fleet\.yaml\)$/m);
    expect(validate.status).toBe(0);
  });
});

/** `import(…)` calls and `import.meta` in a script, found by the TypeScript parser (not in strings or comments). */
function dynamicImportsIn(name: string, code: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const isImportCall = ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword;
    const isImportMeta = ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword;
    if (isImportCall || isImportMeta) found.push(node.getText(source).slice(0, 80));
    ts.forEachChild(node, visit);
  };
  const source = ts.createSourceFile(name, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  visit(source);
  return found;
}
