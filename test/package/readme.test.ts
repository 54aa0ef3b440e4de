/**
 * Issue 31 item 18: the README as a new user reads it. Its code blocks close (a heading after
 * one is a heading), it says in one place where the space locks live (where the code puts them),
 * the example's `$schema` modeline still finds the schema after the quick start's copy, the
 * command table says backups come from the service, and every `npx` runs the local cubeform only.
 */
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { acquireSpaceLock } from "../../reconciler/session/space-lock.js";
import { runCli, tempProject } from "../reconciler/support/cli.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

interface Block {
  open: number;
  info: string;
  lines: string[];
}

/** CommonMark fenced code blocks: a closing fence is the opening's character, at least as long, and nothing else but spaces. */
function codeBlocks(markdown: string): { blocks: Block[]; unclosed?: Block; outside: string[] } {
  const blocks: Block[] = [];
  const outside: string[] = [];
  let open: (Block & { fence: string }) | undefined;
  markdown.split("\n").forEach((line, index) => {
    if (open === undefined) {
      const start = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
      if (start?.[1] && !(start[1].startsWith("`") && start[2]?.includes("`"))) {
        open = { open: index + 1, info: (start[2] ?? "").trim(), lines: [], fence: start[1] };
      } else outside.push(line);
      return;
    }
    const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
    if (close?.[1] && close[1][0] === open.fence[0] && close[1].length >= open.fence.length) {
      blocks.push(open);
      open = undefined;
    } else open.lines.push(line);
  });
  return { blocks, outside, ...(open ? { unclosed: open } : {}) };
}

test("item 18: every code block of the README closes, and no heading or fence is swallowed by one", () => {
  const { blocks, unclosed, outside } = codeBlocks(README);
  expect(unclosed, `a code block opened at README.md:${unclosed?.open} never closes`).toBeUndefined();
  for (const block of blocks) {
    // A fence with a language inside a block means a block before it did not close where it meant to.
    const nested = block.lines.find((line) => /^ {0,3}```\S/.test(line));
    expect(nested, `README.md:${block.open}: a code block holds another fence`).toBeUndefined();
    const heading = block.lines.find((line) => /^#{2,6} \S/.test(line));
    expect(heading, `README.md:${block.open}: a code block holds a heading`).toBeUndefined();
  }
  // A closing fence with text after it does not close: the text must start its own line.
  expect(README.split("\n").filter((line) => /^```[^`\w]*\s\S/.test(line))).toEqual([]);
  const headings = outside.filter((line) => /^#{1,6} /.test(line));
  expect(headings).toContain("### From a git repository");
  expect(headings).toContain("### One writer per space");
});

test("item 18: the README says once where the space locks live, and it is where apply puts them", async () => {
  const held = await acquireSpaceLock({
    origin: "http://127.0.0.1:1",
    spaceId: `readme-${process.pid}`,
    command: "apply",
    cwd: ROOT,
    timeoutMs: 1_000,
  });
  try {
    expect(dirname(held.path)).toBe(join(tmpdir(), `cubeform-${process.getuid?.() ?? "user"}`, "locks"));
  } finally {
    await held.release();
  }
  expect(README).toContain("`$TMPDIR/cubeform-UID/locks`");
  // No other sentence puts them in the state directory (README and the CI example alike).
  const sentences = (text: string) => text.replace(/\n#?\s*/g, " ").split(/(?<=[.:;])\s/);
  for (const [name, text] of [
    ["README.md", README],
    ["examples/ci/apply.yml", read("examples/ci/apply.yml")],
  ] as const) {
    const wrong = sentences(text).filter(
      (s) =>
        /\blocks?\b[^.;]*\b(live|are|is|kept|in)\b[^.;]*(state directory|\.local\/state)/i.test(s) &&
        !s.includes("$TMPDIR/cubeform-UID/locks") &&
        !/\bnot\b[^.;]*state directory/.test(s),
    );
    expect(wrong, name).toEqual([]);
  }
});

test("item 18: after the quick start's copy, the file's $schema modeline still points at the schema (and in examples/ too)", () => {
  const modeline = /^# yaml-language-server: \$schema=(\S+)$/m.exec(read("examples/fleet.yaml"))?.[1] ?? "";
  expect(existsSync(resolve(ROOT, "examples", modeline)), `examples/${modeline}`).toBe(true);
  const quickStart = /## Quick start[\s\S]*?## Install/.exec(README)?.[0] ?? "";
  const copy = /\bcp examples\/fleet\.yaml (\S+)/.exec(quickStart)?.[1];
  expect(copy, "the quick start copies the example").toBeDefined();
  const copied = resolve(ROOT, copy ?? "");
  expect(existsSync(resolve(dirname(copied), modeline)), `${copy}: ${modeline}`).toBe(true);
  // The commands after the copy run where the copy is (its `.cubeform/` beside it).
  const cd = /\bcd (\S+)/.exec(quickStart.slice(quickStart.indexOf("cp examples/fleet.yaml")))?.[1];
  expect(resolve(ROOT, cd ?? ".")).toBe(dirname(copied));
});

test("item 18: the command table says backups are made by the service, and the CLI has no `backup create`", async () => {
  const row = README.split("\n").find((line) => line.startsWith("| `cubeform backup ")) ?? "";
  expect(row).toContain("which the service makes");
  expect(row).toContain("there is no `backup create`");
  const help = await runCli(["backup", "--help"], { cwd: tempProject() });
  expect(help.stdout).toMatch(/\n\s+list\b/);
  expect(help.stdout).not.toMatch(/\n\s+create\b/);
});

test("item 18: every npx in the README, the CI examples and the demo's hint is `npx --no-install cubeform` (the name is unclaimed on the registry)", () => {
  const texts = {
    "README.md": README,
    "examples/ci/apply.yml": read("examples/ci/apply.yml"),
    "examples/ci/drift.yml": read("examples/ci/drift.yml"),
    "examples/ci/preview.yml": read("examples/ci/preview.yml"),
    "examples/ci/preview.gitlab-ci.yml": read("examples/ci/preview.gitlab-ci.yml"),
    "reconciler/actions/demo.ts": read("reconciler/actions/demo.ts"),
  };
  for (const [name, text] of Object.entries(texts)) {
    expect(text.match(/npx cubeform\b/g) ?? [], name).toEqual([]);
  }
  expect(README).toContain("npx --no-install cubeform plan --emulator");
});
