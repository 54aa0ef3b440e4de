import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { isSeq, LineCounter, parseDocument } from "yaml";
import { parseSplit, scanIdentity, TAG_OPTIONS, type LineForms } from "../../desired/yaml-split.js";
import { FLEET_YAML } from "../reconciler/support/fixtures.js";

/** What the whole-document parse gives (with the loader's tags: `!!float 1` is 1): the value and where each cube item starts. */
function wholeParse(source: string) {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, ...TAG_OPTIONS });
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
    '        allow: [10.0.0.0/8, "192.168.0.0/16"]',
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
    '    tagged: [!!str 5, !!int "7", !!float 1, !!null \'\', !!bool "true"]',
    "    text: >-",
    "      folded",
    "      lines",
    "    kept: |+",
    "      kept",
    "",
    "    quoted: 'it''s' ",
    '    escapes: "tab\\tnew\\nline \\u00e9"',
    "  -",
    "    # the node starts on the next line with content",
    "    name: b",
    '  - "name": c',
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
  "a syntax error in one cube": 'apiVersion: cubeform/v1\ncubes:\n  - name: "a\n  - name: b\n',
  "a duplicate key in one cube": "apiVersion: cubeform/v1\ncubes:\n  - name: a\n    name: b\n",
  "an item line under-indented": "apiVersion: cubeform/v1\ncubes:\n    - name: a\n  - name: b\n",
};

test("a cube that convert refuses leaves the file to the whole-document parse", () => {
  expect(parseSplit(SHAPES["the example fleet"] as string, { convert: () => undefined })).toBeUndefined();
  expect(parseSplit(SHAPES["the example fleet"] as string, { convert: (cube) => (cube as { name: string }).name })?.cubes[0]).toBe("web");
});

for (const [name, source] of Object.entries(NOT_CUT)) {
  test(`left to the whole-document parse: ${name}`, () => {
    expect(parseSplit(source)).toBeUndefined();
  });
}

// --target reads the cubes it leaves out for their identity only, from their text when it is
// plain enough (scanIdentity). It may decline anything; what it answers must be what the yaml
// library reads, and a piece the yaml library rejects must never be answered.
const identityOf = (piece: string) => {
  const doc = parseDocument(piece, { uniqueKeys: true });
  if (doc.errors.length > 0) return "error";
  const value = doc.toJS() as unknown;
  if (!Array.isArray(value) || value.length !== 1 || typeof value[0] !== "object" || value[0] === null) return "not one cube";
  const cube = value[0] as { name?: unknown; id?: unknown; domains?: { hostname?: unknown }[] | null };
  const domains = cube.domains ?? [];
  const hostnames = Array.isArray(domains) ? domains.map((d) => (d as { hostname?: unknown } | null)?.hostname) : "not a list";
  return { name: cube.name, ...(cube.id === undefined ? {} : { id: cube.id }), hostnames };
};
const scan = (piece: string) => scanIdentity(piece.replace(/\n$/, "").split("\n"));

const ANSWERED: Record<string, string> = {
  "a bench cube": "  - name: c00001\n    image: ubuntu-24.04\n    region: eu-1\n    resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n".replace(
    "{ vcpu: 1, ramGb: 1, diskGb: 10 }",
    "\n      vcpu: 1\n      ramGb: 1",
  ),
  "domains and ports, comments, blank lines": [
    "  - name: web # the front",
    "    id: cube-123",
    "    # a comment",
    "",
    "    domains:",
    "      - hostname: www.example.com",
    "        port: 8080",
    "        ipAllowList:",
    "          - 10.0.0.0/8",
    "          - 192.168.0.0/16",
    "      -   hostname: api.example.com",
    "    ports:",
    "      - cubePort: 22",
    "    sshPublicKey: ssh-ed25519 AAAAC3Nza user@host",
  ].join("\n"),
  "sequences at their key's indentation":
    "- name: a\n  domains:\n  - hostname: x.example.com\n    basicAuthUser: u\n  - hostname: y.example.com\n  power: stopped\n  ports:\n  - cubePort: 80\n",
  "the node on the dash line with more spaces": "  -    name: spaced\n       image: x\n",
  "hostnames of nested mappings are not domains": "  - name: a\n    other:\n      - hostname: not-a-domain\n    domains:\n",
  "one-line flow collections of plain words":
    "  - name: a\n    resources: { vcpu: 1, ramGb: 2, diskGb: 10 }\n    ports:\n      - cubePort: 80\n        allow: [10.0.0.0/8, 2001:db8::/32]\n      - cubePort: 81\n        allow: []\n",
};

const DECLINED: Record<string, string> = {
  "a name continued on the next line": "  - name: web\n      more\n",
  "a duplicate key": "  - name: a\n    name: b\n",
  "a duplicate key in a domain": "  - name: a\n    domains:\n      - hostname: x\n        hostname: y\n",
  "a quoted name": '  - name: "web"\n',
  "a number as name": "  - name: 123\n",
  "a bool as name": "  - name: true\n",
  "a null name": "  - name:\n",
  "a flow value": "  - name: a\n    domains: [{ hostname: x }]\n",
  "a block scalar": "  - name: a\n    userData: |\n      name: b\n",
  "a tag": "  - name: !!str a\n",
  "an env reference": "  - name: web\n    id: ${env:ID}\n",
  "a key deeper under a value": "  - name: a\n      image: x\n",
  "inconsistent indentation": "  - name: a\n     image: x\n",
  "a mapping value on one line": "  - name: a: b\n",
  "a tab": "  - name: a\n\timage: x\n",
  "domains as a mapping": "  - name: a\n    domains:\n      hostname: x\n",
  "a key where the sequence's items are": "  - name: a\n    ports:\n      - cubePort: 1\n      image: x\n",
  "no name": "  - image: x\n",
};

for (const [what, piece] of Object.entries(ANSWERED)) {
  test(`identity read from the text = parsed: ${what}`, () => {
    const scanned = scan(piece);
    expect(scanned).toBeDefined();
    expect(scanned).toEqual(identityOf(piece));
  });
}

for (const [what, piece] of Object.entries(DECLINED)) {
  test(`identity left to the parser: ${what}`, () => {
    const scanned = scan(piece);
    expect(scanned).toBeUndefined();
  });
}

/** Each piece above with one line changed in the ways that break YAML or change its structure. */
function mutations(piece: string): string[] {
  const lines = piece.replace(/\n$/, "").split("\n");
  const edits = [
    (l: string) => ` ${l}`,
    (l: string) => l.replace(/^ /, ""),
    (l: string) => l.replace(/^( *)/, "$1  "),
    (l: string) => `${l}: x`,
    (l: string) => `${l} [`,
    (l: string) => `${l} #c`,
    (l: string) => `${l},`,
    (l: string) => l.replace(/- /, "  "),
    (l: string) => l.replace(/^( *)/, "$1- "),
    (l: string) => l.replace(/: /, ":"),
    (l: string) => `${l}]`,
    (l: string) => `${l}:`,
  ];
  const out: string[] = [];
  lines.forEach((line, i) => {
    for (const edit of edits) out.push([...lines.slice(0, i), edit(line), ...lines.slice(i + 1)].join("\n"));
    out.push([...lines.slice(0, i + 1), line, ...lines.slice(i + 1)].join("\n"));
  });
  return out;
}

test("identity from the text is what the yaml library reads, or declined, for every one-line change of those pieces", () => {
  let answered = 0;
  for (const piece of [...Object.values(ANSWERED), ...Object.values(DECLINED)].flatMap(mutations)) {
    const scanned = scan(piece);
    const parsed = identityOf(piece);
    if (scanned === undefined) continue;
    answered++;
    expect({ piece, identity: scanned }).toEqual({ piece, identity: parsed });
  }
  expect(answered).toBeGreaterThan(50);
});

test("line forms kept across the pieces of a file give the same answers as reading each piece afresh", () => {
  const forms: LineForms = new Map();
  const pieces = [...Object.values(ANSWERED), ...Object.values(DECLINED)].flatMap((piece) => [piece, ...mutations(piece)]);
  // Twice over: the second pass answers from the kept forms.
  for (const piece of [...pieces, ...pieces])
    expect({ piece, identity: scanIdentity(piece.replace(/\n$/, "").split("\n"), forms) }).toEqual({ piece, identity: scan(piece) });
  expect(forms.size).toBeGreaterThan(0);
  // Identity lines (nearly all distinct in a file) are not kept when they are plain.
  expect([...forms.values()].some((form) => ["name", "id", "hostname"].includes((form as { key?: string }).key ?? ""))).toBe(false);
});
