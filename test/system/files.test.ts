/**
 * The atomic writer (issue 23 items 5 and 6): a planted symlink is replaced, never written
 * through; new files are 0600 and new directories 0700 under umask 022; a mode the user set is kept.
 */
import { chmodSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { openForAppendNoFollow, writeFileAtomic, writeFileAtomicSync } from "../../system/files.js";
import { eachTestInTempDirUnderUmask022 } from "../support/temp-dir.js";

let dir: string;
eachTestInTempDirUnderUmask022("cubeform-files-", (made) => (dir = made));

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Another file of the user's, and a link to it planted where cubeform writes. */
function plantedLink(name: string): { link: string; victim: string } {
  const victim = join(dir, "victim");
  writeFileSync(victim, "precious\n", { mode: 0o644 });
  chmodSync(victim, 0o644);
  const link = join(dir, name);
  symlinkSync(victim, link);
  return { link, victim };
}

describe.each([
  ["writeFileAtomic", (path: string, text: string, options?: { overwrite?: boolean }) => writeFileAtomic(path, text, options)],
  [
    "writeFileAtomicSync",
    async (path: string, text: string, options?: { overwrite?: boolean }) => writeFileAtomicSync(path, text, options),
  ],
])("%s", (_name, write) => {
  test("creates the file 0600 and its missing directories 0700 under umask 022", async () => {
    const path = join(dir, "state", "nested", "file.json");
    await write(path, "{}");
    expect(readFileSync(path, "utf8")).toBe("{}");
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(join(dir, "state"))).toBe(0o700);
    expect(modeOf(join(dir, "state", "nested"))).toBe(0o700);
  });

  test("a mode the user set stays after a rewrite (0640 and 0666 alike)", async () => {
    const path = join(dir, "file.json");
    for (const mode of [0o640, 0o666]) {
      await write(path, "one");
      chmodSync(path, mode);
      await write(path, "two");
      expect(modeOf(path)).toBe(mode);
      expect(readFileSync(path, "utf8")).toBe("two");
    }
  });

  test("a planted symlink is replaced by the file: the link's target keeps its content and mode", async () => {
    const { link, victim } = plantedLink("hook.secret");
    await write(link, "whsec_secret\n");
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(modeOf(victim)).toBe(0o644);
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    expect(readFileSync(link, "utf8")).toBe("whsec_secret\n");
    expect(modeOf(link)).toBe(0o600);
  });

  test("overwrite: false refuses a path that holds anything, a link included, and changes nothing", async () => {
    const { link, victim } = plantedLink("out.yaml");
    await expect(write(link, "imported")).resolves.toBeUndefined();
    const { link: second } = plantedLink("second.yaml");
    await expect(write(second, "imported", { overwrite: false })).rejects.toMatchObject({ code: "EEXIST" });
    expect(lstatSync(second).isSymbolicLink()).toBe(true);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
  });
});

test("openForAppendNoFollow refuses a link (the victim is untouched) and creates a new file 0600", async () => {
  const { link, victim } = plantedLink("archive.cube.part");
  await expect(openForAppendNoFollow(link)).rejects.toMatchObject({ code: "ELOOP" });
  expect(readFileSync(victim, "utf8")).toBe("precious\n");
  const part = join(dir, "fresh.part");
  for (const text of ["ab", "cd"]) {
    const handle = await openForAppendNoFollow(part);
    await handle.write(text);
    await handle.close();
  }
  expect(readFileSync(part, "utf8")).toBe("abcd");
  expect(modeOf(part)).toBe(0o600);
});
