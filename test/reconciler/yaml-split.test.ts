import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { isSeq, LineCounter, parseDocument } from "yaml";
import { parseSplit } from "../../reconciler/yaml-split.js";
import { FLEET_YAML } from "./support/fixtures.js";

/** What the whole-document parse gives: the value and where each cube item starts. */
function wholeParse(source: string) {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines });
  const cubes = doc.get("cubes", true);
  const starts = isSeq(cubes) ? cubes.items.map((item) => lines.linePos((item as { range: number[] }).range[0] as number)) : [];
  return { value: doc.toJS() as unknown, cubeStarts: starts };
}

const SHAPES: Record<string, string> = {
  "the example fleet": readFileSync(FLEET_YAML, "utf8"),
  "comments, blank lines and a key after the cubes": [
    "# a fleet",
    "apiVersion: cubeform/v1",
    "cubes:   # all of them",
    "",
    "  - name: a",
    "    ports:",
    "      - cubePort: 80",
    "        allow: [10.0.0.0/8, \"192.168.0.0/16\"]",
    "# between items, at column 0",
    "",
    "  -   name: b",
    "      userData: |",
    "        #!/bin/sh",
    "        - not an item",
    "  - { name: c, power: stopped }",
    "prune: true",
    "",
  ].join("\n"),
  "a sequence not indented under its key": "apiVersion: cubeform/v1\ncubes:\n- name: a\n  image: x\n-\n  name: b\ndefaults: { image: y }\n",
  "CRLF line endings": "apiVersion: cubeform/v1\r\ncubes:\r\n  - name: a\r\n  - name: b\r\n",
  // js-yaml reads the pieces: every scalar must resolve as the yaml library's YAML 1.2 core schema does.
  "scalars of every core type, and near misses": [
    "apiVersion: cubeform/v1",
    "cubes:",
    "  - name: a",
    "    ints: [0, -7, +5, 007, 0o17, 0x1F, 0b101, -0x1F, 1_000, 0o8]",
    "    floats: [1.5, -.5, +.5, 1., 1e3, 2.5E-2, .inf, -.Inf, .NAN, .nan, 1e, .]",
    "    bools: [true, True, TRUE, false, yes, no, on, off, y, tRUE]",
    "    nulls: [~, null, Null, NULL, nULL, '', \"null\"]",
    "    empty:",
    "    dates: [2024-01-01, 2024-01-01T10:00:00Z, 12:30:45]",
    "    tagged: [!!str 5, !!int \"7\", !!float 1, !!null '', !!bool \"true\"]",
    "    text: >-",
    "      folded",
    "      lines",
    "    kept: |+",
    "      kept",
    "",
    "    quoted: 'it''s' ",
    "    escapes: \"tab\\tnew\\nline \\u00e9\"",
    "  -",
    "    # the node starts on the next line with content",
    "    name: b",
    "  - \"name\": c",
    "  - !!map { name: d }",
    "",
  ].join("\n"),
};

for (const [name, source] of Object.entries(SHAPES)) {
  test(`cut cube by cube = parsed whole: ${name}`, () => {
    const split = parseSplit(source);
    expect(split).toBeDefined();
    const { head, cubes, cubeStarts } = split!;
    expect({ value: { ...head, cubes }, cubeStarts }).toEqual(wholeParse(source));
  });
}

const NOT_CUT: Record<string, string> = {
  "anchors and aliases": "apiVersion: cubeform/v1\ncubes:\n  - &a { name: a }\n  - *a\n",
  "two documents": "apiVersion: cubeform/v1\ncubes:\n  - name: a\n---\nx: 1\n",
  "a flow sequence": "apiVersion: cubeform/v1\ncubes: [{ name: a }]\n",
  "no cubes": "apiVersion: cubeform/v1\n",
  "a duplicate cubes key": "cubes:\n  - name: a\ncubes:\n  - name: b\n",
  "a syntax error in one cube": "apiVersion: cubeform/v1\ncubes:\n  - name: \"a\n  - name: b\n",
  "a duplicate key in one cube": "apiVersion: cubeform/v1\ncubes:\n  - name: a\n    name: b\n",
  "an item line under-indented": "apiVersion: cubeform/v1\ncubes:\n    - name: a\n  - name: b\n",
};

test("a cube that convert refuses leaves the file to the whole-document parse", () => {
  expect(parseSplit(SHAPES["the example fleet"] as string, () => undefined)).toBeUndefined();
  expect(parseSplit(SHAPES["the example fleet"] as string, (cube) => (cube as { name: string }).name)?.cubes[0]).toBe("web");
});

for (const [name, source] of Object.entries(NOT_CUT)) {
  test(`left to the whole-document parse: ${name}`, () => {
    expect(parseSplit(source)).toBeUndefined();
  });
}
