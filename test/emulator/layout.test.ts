/**
 * The emulator's layout (issue 7): no import cycles — type-only imports included — so a
 * resource can be added as files; core/ knows no resource; resources never reach back into
 * the wiring (handler, routes, admin surface, server, entry point).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../emulator");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** file (relative to emulator/) → the emulator files it imports or re-exports from. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(ROOT)) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"/gms)]
      .map((match) => resolve(dirname(file), (match[1] ?? "").replace(/\.js$/, ".ts")))
      .filter((target) => target.startsWith(ROOT + "/"))
      .map((target) => relative(ROOT, target));
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe("emulator layout", () => {
  const graph = importGraph();

  it("reads the imports it checks (sanity: the graph is not empty)", () => {
    expect(graph.get("resources/cubes.ts")).toContain("core/resource.ts");
    expect(graph.get("index.ts")).toContain("types.ts");
  });

  it("has no import cycle, type-only imports included", () => {
    expect(findCycle(graph)).toBeUndefined();
  });

  it("core/ imports nothing outside core/ but the shared types", () => {
    for (const [file, targets] of graph) {
      if (!file.startsWith("core/")) continue;
      for (const target of targets) expect(target.startsWith("core/") || target === "types.ts", `${file} → ${target}`).toBe(true);
    }
  });

  it("resources import only core/, other resources and the shared types — never the wiring or the entry point", () => {
    for (const [file, targets] of graph) {
      if (!file.startsWith("resources/")) continue;
      for (const target of targets) {
        expect(target.startsWith("core/") || target.startsWith("resources/") || target === "types.ts", `${file} → ${target}`).toBe(true);
      }
    }
  });

  it("the core names no job kind: every kind is registered by the resource that owns it", () => {
    const core = readFileSync(join(ROOT, "core/core.ts"), "utf8") + readFileSync(join(ROOT, "core/jobs.ts"), "utf8");
    for (const kind of ["cube-state", "cube-gone", "snapshot-complete", "ssh-port-active", "delivery-attempt"]) expect(core).not.toContain(kind);
  });
});
