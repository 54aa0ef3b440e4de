/**
 * Headless Chromium from the system (Debian's package: apt-get install chromium), driven by playwright-core; no browser is downloaded. When
 * /usr/bin/chromium (or $CUBEFORM_CHROMIUM) is missing, the browser tests skip, with one line that says how to install it.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type BrowserContextOptions } from "playwright-core";
import { onTestFinished } from "vitest";

export const CHROMIUM = process.env.CUBEFORM_CHROMIUM ?? "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const SKIP_LINE = `browser tests skipped: ${CHROMIUM} is missing (install it: apt-get install chromium)`;
// Said once per worker (the test files of a worker share this module).
if (!HAS_CHROMIUM) console.log(SKIP_LINE);

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser with a fresh profile (its own --user-data-dir), closed and removed when the test ends. */
export async function openBrowser(options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), "cubeform-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    timeout: 60_000,
    viewport: { width: 1280, height: 900 },
    ...options,
  });
  onTestFinished(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return context;
}
