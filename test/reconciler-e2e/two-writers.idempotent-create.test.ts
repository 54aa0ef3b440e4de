/**
 * Issue 31 item 4: two writers on two machines (no lock, journal or pacing window in common) that
 * decide the same create send the same Idempotency-Key, so the API creates each cube once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { createClient } from "../../client/index.js";
import { APPLY, FAST_LIMIT, RATE, cubeNameCounts, describeRun, plainFleet, project, startBin, waitFor, type Finished } from "./support.js";
import { startEmulator } from "../../emulator/index.js";

const NAMES = Array.from({ length: 12 }, (_, i) => `app-${String(i + 1).padStart(2, "0")}`);
const FLEET = plainFleet(...NAMES);
// Before the shared key, about one trial in two duplicated a cube: 8 trials miss a regression with a chance under 1 in 250.
const TRIALS = 8;

/** A machine of its own: its checkout (.cubeform/ journal), HOME, XDG directories and TMPDIR. */
function machine(root: string, name: string): { cwd: string; env: Record<string, string> } {
  const home = join(root, name);
  const dirs = {
    HOME: home,
    XDG_STATE_HOME: join(home, "state"),
    XDG_CACHE_HOME: join(home, "cache"),
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_RUNTIME_DIR: join(home, "run"),
    TMPDIR: join(home, "tmp"),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const cwd = join(home, "checkout");
  mkdirSync(cwd);
  writeFileSync(join(cwd, "cubeform.yaml"), FLEET);
  return { cwd, env: dirs };
}

test(`item 4: two writers on two machines apply the same ${NAMES.length}-cube file at once, ${TRIALS} trials: no duplicate`, async () => {
  const emu = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 10_000, windowMs: 60_000 } });
  const root = mkdtempSync(join(tmpdir(), "cubeform-two-writers-"));
  onTestFinished(async () => {
    await emu.close();
    rmSync(root, { recursive: true, force: true });
  });
  // A create takes a little while on the wire, as on a real API: both writers' name checks pass before either create lands.
  emu.admin.injectFault({ kind: "latency", method: "POST", path: "/cubes$", ms: 40 });
  const duplicates: number[] = [];
  const exits: string[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const space = emu.admin.createSpace({ name: `trial-${trial}` });
    const writers = ["a", "b"].map((name) => machine(root, `t${trial}-${name}`));
    const runs = writers.map(({ cwd, env }) =>
      startBin(["apply", "--auto-approve", ...RATE, "--poll-interval", "20"], {
        cwd,
        env: { ...env, CUBE_API_URL: emu.url, CUBE_API_KEY: space.ownerKey },
      }),
    );
    const finished: Finished[] = await Promise.all(runs.map((r) => r.exited));
    exits.push(finished.map((f) => f.code).join("/"));
    // Each run either made the space match or stopped at a cube the other made (never a second one).
    for (const run of finished)
      if (run.code !== 0) expect(run.stdout + run.stderr).toMatch(/appeared in the space after the plan was made|The space matches/);
    const api = createClient({ baseUrl: emu.url, apiKey: space.ownerKey, spaceId: space.spaceId, rateLimit: FAST_LIMIT });
    const live = (await api.listCubes()).filter((c) => c.state !== "deleted");
    await api.close();
    duplicates.push(live.length - new Set(live.map((c) => c.name)).size);
    expect(new Set(live.map((c) => c.name))).toEqual(new Set(NAMES));
  }
  console.info(
    `two writers, ${TRIALS} trials of ${NAMES.length} cubes: duplicates per trial ${JSON.stringify(duplicates)}, exit codes ${JSON.stringify(exits)}`,
  );
  expect(duplicates.reduce((a, b) => a + b, 0)).toBe(0);
}, 600_000);

test("item 4: a cube deleted and declared again is created anew, not answered with the deleted one's replay", async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web") });
  const first = await p.run(APPLY);
  expect(first.code, describeRun(first)).toBe(0);
  const [old] = await p.api.listCubes();
  await p.api.deleteCube(old!.id);
  await waitFor(async () => (await cubeNameCounts(p.api)).web === undefined, { timeoutMs: 15_000, message: "the deletion to finish" });
  const again = await p.run(APPLY);
  expect(again.code, describeRun(again)).toBe(0);
  const live = (await p.api.listCubes()).filter((c) => c.state !== "deleted");
  expect(live.map((c) => c.name)).toEqual(["web"]);
  expect(live[0]!.id).not.toBe(old!.id);
  expect(again.stdout).toContain(
    `create-cube cube/web: the create's key was answered with ${old!.id}, which is gone: creating it again with a new key`,
  );
  // The first key was answered from the API's store (the deleted cube); the next one, naming it, created the cube.
  const creates = p.emu.admin.requests().filter((r) => r.method === "POST" && r.path.endsWith("/cubes"));
  expect(creates.map((r) => r.replayed)).toEqual([false, true, false]);
  expect(new Set(creates.map((r) => r.idempotencyKey)).size).toBe(2);
});
