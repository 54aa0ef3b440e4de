/**
 * The emulator's layout (issue 7): no import cycles — type-only imports included — so a
 * resource can be added as files; core/ knows no resource; resources never reach back into
 * the wiring (handler, routes, admin surface, server, entry point).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeCycles, findCycles, importGraph, REPO_ROOT } from "../support/import-graph.js";

const ROOT = join(REPO_ROOT, "emulator");

/** file (relative to emulator/) → the emulator files it imports or re-exports from. */
function emulatorGraph(): Map<string, string[]> {
  const withinEmulator = (path: string): string => path.slice("emulator/".length);
  return new Map([...importGraph(["emulator"]).edges].map(([file, targets]) => [withinEmulator(file), targets.map(withinEmulator)]));
}

describe("emulator layout", () => {
  const graph = emulatorGraph();

  it("reads the imports it checks (sanity: the graph is not empty)", () => {
    expect(graph.get("resources/cubes.ts")).toContain("core/resource.ts");
    expect(graph.get("index.ts")).toContain("types.ts");
  });

  it("has no import cycle, type-only imports included", () => {
    const cycles = findCycles(graph);
    expect(cycles, describeCycles(cycles)).toEqual([]);
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
    for (const kind of ["cube-state", "cube-gone", "snapshot-complete", "ssh-port-active", "delivery-attempt"])
      expect(core).not.toContain(kind);
  });
});
