import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/**
 * Runs each test of the file in a fresh temporary directory (`keep` receives its path) under umask 022,
 * the usual one, so that the modes files are created with do not depend on the machine's; both undone after the test.
 */
export function eachTestInTempDirUnderUmask022(prefix: string, keep: (dir: string) => void): void {
  let dir: string | undefined;
  let umask: number | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    umask = process.umask(0o022);
    keep(dir);
  });
  afterEach(() => {
    if (umask !== undefined) process.umask(umask);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
}
