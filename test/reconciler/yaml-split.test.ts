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
