import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let fallback: string | undefined;

/**
 * XDG_CACHE_HOME for a spawned bin (it keeps its code cache there, bin/bundle-loader.js): the
 * run's temporary directory (test/global-setup.ts), never the user's.
 */
export function testCacheHome(): { XDG_CACHE_HOME: string } {
  fallback ??= process.env.XDG_CACHE_HOME || mkdtempSync(join(tmpdir(), "cubeform-test-cache-"));
  return { XDG_CACHE_HOME: fallback };
}
