import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Build dist once per run, as `npm run build` does: CLI tests spawn the built bin (it runs the
 * bundle in dist/cli), provider tests load the built package.
 */
export default function setup(): () => void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url)), "-p", "tsconfig.build.json"],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
  execFileSync(process.execPath, ["build/cli-bundle.mjs"], { cwd: root, stdio: "inherit" });
  // Locks and the shared pacing window live in the user's state directory: a test that forgets
  // to choose one still never touches the real one, nor another run's.
  const stateHome = mkdtempSync(join(tmpdir(), "cubeform-test-state-"));
  process.env.XDG_STATE_HOME = stateHome;
  // The bin's code cache (bin/bundle-loader.js) likewise: one per run, shared by its tests.
  const cacheHome = mkdtempSync(join(tmpdir(), "cubeform-test-cache-"));
  process.env.XDG_CACHE_HOME = cacheHome;
  return () => {
    rmSync(stateHome, { recursive: true, force: true });
    rmSync(cacheHome, { recursive: true, force: true });
  };
}
