/**
 * The bounded reader (issue 20 item 4): only a regular file within its bound is read; a device,
 * a named pipe, a directory, a broken or looping link or a file over the bound is a typed
 * refusal, at once and without reading it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { FileReadError, formatBytes, readRegularFile, readRegularFileAsync, type ReadLimit } from "../../system/files.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cubeform-read-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const KEY: ReadLimit = { maxBytes: 16 * 1024, what: "an SSH public key" };

async function refusalAsync(read: () => Promise<unknown>): Promise<FileReadError> {
  const error = await read().then(
    () => new Error("read, not refused"),
    (e: unknown) => e,
  );
  if (error instanceof FileReadError) return error;
  throw error;
}

describe.each([
  ["readRegularFile", (path: string, limit: ReadLimit) => Promise.resolve().then(() => readRegularFile(path, limit))],
  ["readRegularFileAsync", readRegularFileAsync],
])("%s", (_name, read) => {
  const refused = (path: string, limit: ReadLimit = KEY) => refusalAsync(() => read(path, limit));

  test("reads a regular file, and one through a symlink", async () => {
    writeFileSync(join(dir, "key.pub"), "ssh-ed25519 AAAA\n");
    symlinkSync("key.pub", join(dir, "link.pub"));
    expect((await read(join(dir, "key.pub"), KEY)).toString()).toBe("ssh-ed25519 AAAA\n");
    expect((await read(join(dir, "link.pub"), KEY)).toString()).toBe("ssh-ed25519 AAAA\n");
  });

  test("a file of exactly the bound is read; one byte more is refused, naming both sizes", async () => {
    writeFileSync(join(dir, "exact"), "x".repeat(16 * 1024));
    writeFileSync(join(dir, "over"), "x".repeat(20 * 1024));
    expect((await read(join(dir, "exact"), KEY)).length).toBe(16 * 1024);
    const error = await refused(join(dir, "over"));
    expect(error.refusal).toBe("too_large");
    expect(error.message).toBe(`cannot read ${join(dir, "over")}: it is 20 KB, over the 16 KB limit for an SSH public key`);
    writeFileSync(join(dir, "one-over"), "x".repeat(16 * 1024 + 1));
    expect((await refused(join(dir, "one-over"))).reason).toBe("it is 16385 bytes, over the 16384-byte limit for an SSH public key");
  });

  test("a 4 GB sparse file is refused from its size, unread", async () => {
    const huge = join(dir, "huge.yaml");
    writeFileSync(huge, "");
    truncateSync(huge, 4 * 1024 ** 3);
    const started = performance.now();
    expect((await refused(huge, { maxBytes: 64 * 1024 ** 2, what: "a desired-state file" })).reason).toBe(
      "it is 4 GB, over the 64 MB limit for a desired-state file",
    );
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("a file whose size says 0 but holds more (/proc) is read up to the bound and refused past it", async () => {
    expect((await read("/proc/self/status", KEY)).toString()).toMatch(/^Name:/);
    expect((await refused("/proc/self/status", { maxBytes: 10, what: "a test file" })).reason).toBe(
      "it grew past the 10 bytes limit for a test file while it was read",
    );
  });

  test.for([
    ["/dev/zero", "not a regular file (a character device)"],
    ["/dev/urandom", "not a regular file (a character device)"],
  ] as const)("%s is refused, and so is a link to it", async ([device, reason]) => {
    symlinkSync(device, join(dir, "fleet.yaml"));
    expect((await refused(device)).reason).toBe(reason);
    expect(await refused(join(dir, "fleet.yaml"))).toMatchObject({ refusal: "not_regular", reason });
  });

  test("a named pipe with no writer is refused at once (opening it does not wait)", async () => {
    const fifo = join(dir, "fifo.yaml");
    execFileSync("mkfifo", [fifo]);
    expect((await refused(fifo)).reason).toBe("not a regular file (a named pipe)");
  });

  test("a directory, a missing file, a dangling and a looping symlink: each its own reason", async () => {
    mkdirSync(join(dir, "sub"));
    symlinkSync("nowhere.yaml", join(dir, "dangling.yaml"));
    symlinkSync("loop-b.yaml", join(dir, "loop-a.yaml"));
    symlinkSync("loop-a.yaml", join(dir, "loop-b.yaml"));
    expect(await refused(join(dir, "sub"))).toMatchObject({ refusal: "not_regular", reason: "not a regular file (a directory)" });
    expect(await refused(join(dir, "absent"))).toMatchObject({ refusal: "missing", reason: "no such file" });
    expect(await refused(join(dir, "dangling.yaml"))).toMatchObject({
      refusal: "dangling_symlink",
      reason: "a symlink to nowhere.yaml, which does not exist",
    });
    expect(await refused(join(dir, "loop-a.yaml"))).toMatchObject({
      refusal: "symlink_loop",
      reason: "a symlink that loops (too many levels of symbolic links)",
    });
  });
});

test("sizes are shown in the units the API states its limits in", () => {
  expect([formatBytes(900), formatBytes(16 * 1024), formatBytes(20.5 * 1024), formatBytes(64 * 1024 ** 2)]).toEqual([
    "900 bytes",
    "16 KB",
    "20.5 KB",
    "64 MB",
  ]);
});
