/**
 * The source tree's layout (issue 19): no import cycle anywhere in the product — every top-level
 * folder but test/, bench/ and build output, found rather than listed, so a new folder is
 * checked too — with type-only imports and import() counted; and the layers DESIGN.md draws.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { describeCycles, findCycles, importGraph, productFolders, REPO_ROOT } from "./support/import-graph.js";

describe("source layout", () => {
  const folders = productFolders();
  const graph = importGraph(folders);

  it("reads the whole product and every kind of import (sanity: the graph is not empty)", () => {
    expect(folders).toEqual(expect.arrayContaining(["bin", "client", "emulator", "engine", "provider", "reconciler", "schema"]));
    expect(folders).not.toContain("test");
    expect(folders).not.toContain("bench");
    // import(), require() and the package's own name are edges.
    expect(graph.edges.get("reconciler/main.ts")).toContain("reconciler/commands/index.ts");
    expect(graph.edges.get("reconciler/commands/index.ts")).toContain("reconciler/commands/apply.ts");
    expect(graph.edges.get("bin/cubeform.js")).toContain("bin/bundle-loader.js");
    expect(graph.edges.get("provider/resources.ts")).toContain("provider/runtime.ts");
    expect(graph.unresolved).toEqual([]);
  });

  it("finds a cycle when there is one, and says which files make it", () => {
    const edges = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
      ["d.ts", []],
      ["e.ts", ["e.ts"]],
    ]);
    expect(describeCycles(findCycles(edges))).toBe("a.ts → b.ts → c.ts → a.ts\ne.ts → e.ts");
    expect(
      findCycles(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", []],
        ]),
      ),
    ).toEqual([]);
  });

  it("has no import cycle, type-only imports and import() included", () => {
    const cycles = findCycles(graph.edges);
    expect(cycles, `import cycles:\n${describeCycles(cycles)}`).toEqual([]);
  });

  it("nothing below the front doors knows them: engine/, client/ and schema/ import nothing from reconciler/ or provider/", () => {
    expect(importsFromTo(["engine/", "client/", "schema/"], ["reconciler/", "provider/"])).toEqual([]);
  });

  it("the front doors share the loader, not each other: provider/ imports nothing from reconciler/, desired/ nothing from either", () => {
    expect(importsFromTo(["provider/", "desired/"], ["reconciler/"])).toEqual([]);
    expect(importsFromTo(["desired/"], ["provider/"])).toEqual([]);
  });

  it("one vocabulary inside: the API's names of a TCP mapping's fields appear only in client/, the emulator and the API's schemas", () => {
    // The provider still accepts the input names of earlier releases: its alias table and the deprecated arguments it types.
    const mayName = (file: string) =>
      file.startsWith("client/") ||
      file.startsWith("emulator/") ||
      ["schema/api.ts", "schema/listed.ts", "provider/aliases.ts", "provider/resources.ts"].includes(file);
    const named = (file: string) => apiNamesIn(file).map((name) => `${file}: ${name}`);
    expect([...graph.edges.keys()].filter((file) => !mayName(file)).flatMap(named)).toEqual([]);
    // The check sees the names where they are (identifiers and strings, not comments).
    expect(apiNamesIn("client/vocabulary.ts")).toEqual(expect.arrayContaining(["udpEnabled", "whitelistedIps"]));
    expect(apiNamesOf('const a = { udpEnabled: 1 }; a["whitelistedIps"]; // whitelistIps', "x.ts")).toEqual([
      "udpEnabled",
      "whitelistedIps",
    ]);
  });

  it("front doors only: desired/, engine/, client/, emulator/ and provider/ are entered by their doors, never by a deep import", () => {
    expect(pastTheDoors(graph.edges)).toEqual([]);
    // The check sees a deep import (and a folder's own files import one another freely).
    const edges = new Map([
      ["reconciler/a.ts", ["engine/plan.ts", "engine/index.ts", "client/light.ts", "emulator/core/state.ts"]],
      ["engine/plan.ts", ["engine/diff.ts", "client/api.ts"]],
    ]);
    expect(pastTheDoors(edges)).toEqual(["reconciler/a.ts → engine/plan.ts", "reconciler/a.ts → emulator/core/state.ts"]);
  });

  it("schema/ and system/ are libraries of leaves, each module its own entry: they import nothing from the rest of the product", () => {
    expect(
      importsFromTo(
        ["schema/", "system/"],
        folders.filter((f) => f !== "schema" && f !== "system").map((f) => `${f}/`),
      ),
    ).toEqual([]);
    expect(importsFromTo(["system/"], ["schema/"])).toEqual([]);
  });

  it("engine/ reads no file: it imports neither node:fs nor system/files.ts nor the loader", () => {
    const engineFiles = [...graph.edges.keys()].filter((file) => file.startsWith("engine/"));
    const reads = engineFiles.flatMap((file) =>
      specifiersOf(file)
        .filter((spec) => /^(node:)?fs(\/|$)|system\/files\.js$|\/desired\//.test(spec))
        .map((spec) => `${file} → ${spec}`),
    );
    expect(reads).toEqual([]);
    expect(specifiersOf("desired/load.ts")).toContain("../system/files.js"); // the check sees what a file imports
  });

  it("library layers name no CLI flag: no message in desired/, engine/ or client/ says --repo, -f, --allow-replace…", () => {
    const library = [...graph.edges.keys()].filter((file) => /^(desired|engine|client)\//.test(file));
    expect(library.flatMap((file) => flagsIn(file).map((flag) => `${file}: ${flag}`))).toEqual([]);
    // The check reads strings and template parts, not comments; a git argument alone ("--quiet") is not a message.
    expect(flagsOf('const a = `commit ${c} has no ${p} (--path): x`; git(["fetch", "--quiet"]); // pass --repo', "x.ts")).toEqual([
      "--path",
    ]);
    expect(flagsOf('throw new Error("use -f/--file to name it")', "x.ts")).toEqual(["-f"]);
  });

  it("one zod dialect: product code imports zod/mini (and zod's core), never zod classic (zod, zod/v4, zod/v4/classic)", () => {
    const classic = /^zod(\/v4(\/classic(\/.*)?)?)?$/;
    const product = [...graph.edges.keys()];
    expect(
      product.flatMap((file) =>
        specifiersOf(file)
          .filter((spec) => classic.test(spec))
          .map((spec) => `${file} → ${spec}`),
      ),
    ).toEqual([]);
    // The check sees both kinds of import, and lets zod/mini and zod's core through.
    expect(specifiersOf("schema/api.ts")).toContain("zod/mini");
    expect(
      ['import { z } from "zod"', 'import type { z } from "zod/v4"', 'from "zod/mini"', 'from "zod/v4/core"'].map((line) =>
        classic.test(/"(.*)"/.exec(line)![1]!),
      ),
    ).toEqual([true, true, false, false]);
  });

  it("reconciler/ has floors: actions never import each other, nothing below them imports one, nothing outside commands/ imports it but main.ts", () => {
    expect(importsFromTo(["reconciler/actions/"], ["reconciler/actions/"])).toEqual([]);
    // Option value types live in reconciler/arguments/: a plan's context, followed from the command to the request, never climbs back.
    const outside = folders.map((f) => `${f}/`);
    const intoCommands = importsFromTo(outside, ["reconciler/commands/"]).filter((edge) => !edge.startsWith("reconciler/commands/"));
    expect(intoCommands).toEqual(["reconciler/main.ts → reconciler/commands/index.ts"]);
    // Nor does anything below the actions (session/, report/, render/, arguments/, watch/…) import an action.
    const intoActions = [...graph.edges].flatMap(([file, targets]) =>
      /^reconciler\/(commands|actions)\//.test(file)
        ? []
        : targets.filter((t) => t.startsWith("reconciler/actions/")).map((t) => `${file} → ${t}`),
    );
    expect(intoActions).toEqual([]);
  });

  it("reconciler/'s root holds only the CLI's entry and what every floor shares: a new file goes into a floor", () => {
    const loose = readdirSync(join(REPO_ROOT, "reconciler"), { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
    expect(loose).toEqual(["completion.ts", "errors.ts", "hints.ts", "io.ts", "main.ts", "prompt.ts", "redact.ts", "ssh.ts", "version.ts"]);
  });

  /** `file → target` for each import from a file under one of the folders `from` into one under `to`. */
  function importsFromTo(from: string[], to: string[]): string[] {
    const under = (folders: string[]) => (path: string) => folders.some((folder) => path.startsWith(folder));
    return [...graph.edges]
      .filter(([file]) => under(from)(file))
      .flatMap(([file, targets]) => targets.filter(under(to)).map((target) => `${file} → ${target}`));
  }
});

const API_NAMES = new Set(["udpEnabled", "whitelistedIps", "whitelistIps"]);

function apiNamesIn(file: string): string[] {
  return apiNamesOf(readFileSync(join(REPO_ROOT, file), "utf8"), file);
}

/** The API's field names among the identifiers and string literals of a source text. */
function apiNamesOf(text: string, file: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isIdentifier(node) || ts.isStringLiteralLike(node)) && API_NAMES.has(node.text)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return found;
}

/**
 * Each folder's doors: index.ts, and a named entry for a part that must load alone. A light door is for what start-up loads: the CLI's
 * bundle loads every module a door re-exports (engine/light.ts says why).
 */
const DOORS: Record<string, string[]> = {
  desired: ["index.ts", "git.ts", "errors.ts"],
  engine: ["index.ts", "types.ts", "light.ts"],
  client: ["index.ts", "api.ts", "light.ts", "dispatcher.ts"],
  emulator: ["index.ts", "cli.ts"],
  provider: ["index.ts", "runtime.ts"],
};

/** `file → target` for each import from outside a folder of DOORS into it that is not one of its doors. */
function pastTheDoors(edges: Map<string, string[]>): string[] {
  const folderOf = (path: string) => path.slice(0, path.indexOf("/"));
  return [...edges].flatMap(([file, targets]) =>
    targets
      .filter((target) => {
        const doors = DOORS[folderOf(target)];
        return doors !== undefined && folderOf(file) !== folderOf(target) && !doors.includes(target.slice(target.indexOf("/") + 1));
      })
      .map((target) => `${file} → ${target}`),
  );
}

/** The module specifiers a file imports (static, dynamic and export … from). */
function specifiersOf(file: string): string[] {
  const text = readFileSync(join(REPO_ROOT, file), "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1] as string);
}

function flagsIn(file: string): string[] {
  return flagsOf(readFileSync(join(REPO_ROOT, file), "utf8"), file);
}

/** CLI flags named in the string literals and template parts that read as words (a message), not as a lone argument. */
function flagsOf(text: string, file: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const isText = ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node);
    if (isText && /\s/.test(node.text))
      for (const m of node.text.matchAll(/(?:^|[\s("'`])(--[a-z][a-z-]*|-f)(?=[\s)/:,;]|$)/g)) found.push(m[1] as string);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return found;
}
