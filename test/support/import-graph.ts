/**
 * The import graph of the product's source, for the layout tests: which file imports which,
 * counting every kind of import — static, type-only, side-effect, re-exports, import() (a
 * lazily loaded module is still a dependency), require() (bin/ is CommonJS) and the package's
 * own name (`cubeform/provider-runtime` is provider/runtime.ts). TypeScript's own scanner finds
 * them, so an import in a comment or a string is not one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Top-level folders that are not the product's source. */
const NOT_PRODUCT = new Set(["test", "bench", "node_modules", "dist"]);
const SOURCE = /\.(ts|js|mjs|cjs)$/;

/** The product's top-level folders: every folder of the repository that holds source, but tests, benchmarks and build output. */
export function productFolders(): string[] {
  return readdirSync(REPO_ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !NOT_PRODUCT.has(entry.name))
    .map((entry) => entry.name)
    .filter((name) => sourceFiles(join(REPO_ROOT, name)).length > 0)
    .sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

export interface ImportGraph {
  /** file → the files it imports, both relative to the repository root. */
  edges: Map<string, string[]>;
  /** `file → specifier` for each relative import (or import of the package's own name) that names no file. */
  unresolved: string[];
}

/** The graph of the source files under the given top-level folders; imports that leave them are not edges. */
export function importGraph(folders: string[]): ImportGraph {
  const edges = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of folders.flatMap((folder) => sourceFiles(join(REPO_ROOT, folder)))) {
    const targets: string[] = [];
    for (const { fileName: specifier } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
      const ownExport = ownPackageExport(specifier);
      if (!specifier.startsWith(".") && !ownExport) continue;
      const target = resolveRelative(ownExport ? join(REPO_ROOT, "package.json") : file, ownExport ?? specifier);
      if (!target) unresolved.push(`${relative(REPO_ROOT, file)} → ${specifier}`);
      else if (folders.some((folder) => target.startsWith(`${join(REPO_ROOT, folder)}/`))) targets.push(relative(REPO_ROOT, target));
    }
    edges.set(relative(REPO_ROOT, file), [...new Set(targets)]);
  }
  return { edges, unresolved };
}

const PACKAGE = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { name: string; exports: Record<string, string> };

/** `cubeform/x` as the source path its export is built from (`./dist/provider/runtime.js` → `./provider/runtime.js`); undefined for another package. */
function ownPackageExport(specifier: string): string | undefined {
  if (specifier !== PACKAGE.name && !specifier.startsWith(`${PACKAGE.name}/`)) return undefined;
  const built = PACKAGE.exports[`.${specifier.slice(PACKAGE.name.length)}`];
  return built?.replace(/^\.\/dist\//, "./");
}

/** The file a relative specifier names, as NodeNext resolves a TypeScript import: `./x.js` is x.ts when that exists. */
function resolveRelative(importer: string, specifier: string): string | undefined {
  const path = resolve(dirname(importer), specifier);
  const candidates = [path.replace(/\.js$/, ".ts"), path, `${path}.ts`, join(path, "index.ts")];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/**
 * One cycle for each group of files that import one another (a strongly connected component,
 * Tarjan's algorithm), each written `a → b → … → a`. Empty when the graph has no cycle.
 */
export function findCycles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    lowLink.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
      } else if (onStack.has(next)) lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
    }
    if (lowLink.get(node) !== index.get(node)) return;
    const component = new Set<string>();
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.add(member);
    } while (member !== node);
    if (component.size > 1 || edges.get(node)?.includes(node)) cycles.push(cycleWithin(edges, component, node));
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** A shortest path from start back to itself through the component (breadth first). */
function cycleWithin(edges: Map<string, string[]>, component: Set<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const next of edges.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

export function describeCycles(cycles: string[][]): string {
  return cycles.map((cycle) => cycle.join(" → ")).join("\n");
}
