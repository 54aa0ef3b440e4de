/**
 * bin/bundle-loader.js runs before any of cubeform's modules and cannot import system/: its cache directory and its writes
 * follow system/'s rules by a copy, and these tests check that the copy and the original agree.
 */
import { createRequire } from "node:module";
import { lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { xdgHome } from "../../system/dirs.js";
import { writeFileAtomicSync } from "../../system/files.js";
import { eachTestInTempDirUnderUmask022 } from "../support/temp-dir.js";

const loader = createRequire(import.meta.url)("../../bin/bundle-loader.js") as {
  xdgCacheHome(env: Record<string, string | undefined>): string;
  writeWhole(path: string, bytes: Buffer): void;
};

let dir: string;
eachTestInTempDirUnderUmask022("cubeform-loader-rules-", (made) => (dir = made));

test("the loader's cache home is system/dirs.ts xdgHome(env, 'cache') for every shape of XDG_CACHE_HOME and HOME", () => {
  const envs = [
    {},
    { HOME: "/home/u" },
    { HOME: " /home/u ", XDG_CACHE_HOME: "/var/cache/u" },
    { HOME: "/home/u", XDG_CACHE_HOME: "relative/cache" },
    { HOME: "/home/u", XDG_CACHE_HOME: "  " },
    { XDG_CACHE_HOME: " /c " },
  ];
  for (const env of envs) expect(loader.xdgCacheHome(env), JSON.stringify(env)).toBe(xdgHome(env, "cache"));
});

test("the loader writes as writeFileAtomicSync does: a new file is 0600, a planted symlink is replaced and its target untouched, no temporary file is left", () => {
  const target = join(dir, "target");
  writeFileSync(target, "keep");
  for (const [name, write] of [
    ["loader", (p: string) => loader.writeWhole(p, Buffer.from("data"))],
    ["system", (p: string) => writeFileAtomicSync(p, "data")],
  ] as const) {
    const fresh = join(dir, `${name}-fresh`);
    write(fresh);
    expect(lstatSync(fresh).mode & 0o777, name).toBe(0o600);
    const planted = join(dir, `${name}-planted`);
    symlinkSync(target, planted);
    write(planted);
    expect(lstatSync(planted).isSymbolicLink(), name).toBe(false);
    expect(readFileSync(planted, "utf8"), name).toBe("data");
  }
  expect(readFileSync(target, "utf8")).toBe("keep");
  expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
});
