/**
 * Issue 31 (the file's space wins, for watch too): watch reads the file before it connects, so a file whose `space:` differs from
 * CUBE_SPACE_ID is watched in the file's space, not failed every round with space_mismatch.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { createClient } from "../../client/index.js";
import { FAST_LIMIT, RATE, cubeNameCounts, describeRun, plainFleet, project } from "./support.js";

test("watch --apply --once: the file says space A, CUBE_SPACE_ID says B: the round applies in A, B is untouched", {
  timeout: 120_000,
}, async () => {
  const p = await project();
  const b = p.emu.admin.createSpace({ name: "team-b" });
  const apiB = createClient({ baseUrl: p.emu.url, apiKey: b.ownerKey, spaceId: b.spaceId, rateLimit: FAST_LIMIT });
  try {
    writeFileSync(
      join(p.cwd, "cubeform.yaml"),
      plainFleet("web").replace("apiVersion: cubeform/v1\n", `apiVersion: cubeform/v1\nspace: ${p.emu.spaceId}\n`),
    );
    const watched = await p.run(["watch", "--apply", "--once", ...RATE, "--poll-interval", "20"], { CUBE_SPACE_ID: b.spaceId });
    expect(watched.code, describeRun(watched)).toBe(0);
    expect(watched.stderr).not.toContain("space_mismatch");
    expect(watched.stderr).not.toMatch(/connected to space/);
    expect(watched.stderr).toContain(`warning: the file says space: ${p.emu.spaceId}, the environment says ${b.spaceId}`);
    // The watch asked nothing of B's space (read before this test's own look at B below).
    expect(p.emu.admin.requests().filter((r) => r.path.includes(`/spaces/${b.spaceId}/`))).toEqual([]);
    expect(await cubeNameCounts(p.api)).toEqual({ web: 1 });
    expect(await cubeNameCounts(apiB)).toEqual({});
  } finally {
    await apiB.close();
  }
});
