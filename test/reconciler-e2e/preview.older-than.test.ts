/**
 * `preview sweep --older-than`: judged on the times the API keeps (a cube's createdAt/updatedAt), so a runner with an empty disk
 * can do it. The previews are aged as a real space ages them: the emulator is stopped, its state file's times moved five days
 * back, and started again on the same file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { createClient } from "../../client/index.js";
import { startEmulator } from "../../emulator/index.js";
import { describeRun, FAST_LIMIT, RATE, SSH_KEY, startBin, tempDir, waitFor } from "./support.js";

const FIVE_DAYS_AGO = new Date(Date.now() - 5 * 24 * 3_600_000).toISOString();

test("sweep --older-than 72h removes the previews unchanged for five days; a fresh one and a protected one stay", {
  timeout: 120_000,
}, async () => {
  const statePath = join(tempDir(), "state.json");
  const apiKey = "kro_previewolderthantestkey0001";
  const first = await startEmulator({ clockSpeed: 200, rateLimit: FAST_LIMIT, statePath, apiKey });
  const api = createClient({ baseUrl: first.url, apiKey, spaceId: first.spaceId, rateLimit: FAST_LIMIT });
  const create = (name: string, protect = false) =>
    api.createCube(
      {
        name,
        image: "ubuntu-24.04",
        resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
        sshPublicKey: SSH_KEY,
        ...(protect ? { terminationProtection: true } : {}),
      },
      { idempotencyKey: name },
    );
  for (const name of ["web", "old-pr-1", "old-db-pr-1", "kept-pr-3"]) await create(name, name === "kept-pr-3");
  // Settled before the state is aged: a boot finishing after the restart would be a change (updatedAt) of today.
  await waitFor(async () => ((await api.listCubes()).every((c) => c.state === "running") ? true : undefined), { timeoutMs: 30_000 });
  await api.close();
  await first.close();
  const state = JSON.parse(readFileSync(statePath, "utf8")) as {
    cubes: Record<string, { name: string; createdAt: string; updatedAt: string }>;
  };
  for (const cube of Object.values(state.cubes))
    if (cube.name !== "web") Object.assign(cube, { createdAt: FIVE_DAYS_AGO, updatedAt: FIVE_DAYS_AGO });
  writeFileSync(statePath, JSON.stringify(state));

  const emu = await startEmulator({ clockSpeed: 200, rateLimit: FAST_LIMIT, statePath, apiKey });
  onTestFinished(() => emu.close());
  const client = createClient({ baseUrl: emu.url, apiKey, spaceId: emu.spaceId, rateLimit: FAST_LIMIT });
  onTestFinished(() => client.close());
  await client.createCube(
    { name: "new-pr-2", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "new" },
  );
  const env = { CUBE_API_URL: emu.url, CUBE_API_KEY: apiKey };
  const cwd = tempDir();

  const sweep = await startBin(["preview", "sweep", "--older-than", "72h", "-o", "json", ...RATE, "--poll-interval", "20"], { cwd, env })
    .exited;
  expect(sweep.code, describeRun(sweep)).toBe(1);
  const report = JSON.parse(sweep.stdout);
  expect(report.removed.sort()).toEqual(["old-db-pr-1", "old-pr-1"]);
  expect(report.kept).toEqual([{ name: "kept-pr-3", reason: "termination protection is on (a preview never removes a protected cube)" }]);
  const left = (await client.listCubes())
    .filter((c) => c.state !== "deleted")
    .map((c) => c.name)
    .sort();
  expect(left).toEqual(["kept-pr-3", "new-pr-2", "web"]);
});
