/**
 * Issue 31 item 1: the space is the file's `space:`, else CUBE_SPACE_ID, else the key's own; every
 * text plan and apply names it, JSON carries it. A file for one space never acts on another.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { createClient } from "../../client/index.js";
import { APPLY, FAST_LIMIT, RATE, createPlainCube, cubeNameCounts, describeRun, plainFleet, project } from "./support.js";

const withSpace = (space: string, ...names: string[]): string =>
  plainFleet(...names).replace("apiVersion: cubeform/v1\n", `apiVersion: cubeform/v1\nspace: ${space}\nprune: true\n`);

/** The emulator's own space (A, the project's key) and a second one (B) with two cubes of its own, made with B's key. */
async function twoSpaces() {
  const p = await project();
  const b = p.emu.admin.createSpace({ name: "team-b" });
  const apiB = createClient({ baseUrl: p.emu.url, apiKey: b.ownerKey, spaceId: b.spaceId, rateLimit: FAST_LIMIT });
  const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp b@x";
  for (const name of ["b-1", "b-2"])
    await apiB.createCube(
      { name, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: key },
      { idempotencyKey: `b-${name}` },
    );
  return { p, b, apiB, close: () => apiB.close() };
}

test("item 1: a file for space A run with space B's key and prune: true never touches B's cubes: it fails naming the file's space", async () => {
  const { p, b, apiB, close } = await twoSpaces();
  try {
    writeFileSync(join(p.cwd, "cubeform.yaml"), withSpace(p.emu.spaceId, "web"));
    const asB = { CUBE_API_KEY: b.ownerKey };
    p.emu.admin.clearRequests();
    const plan = await p.run(["plan", ...RATE, "--prune", "--format", "json"], asB);
    expect(plan.code, describeRun(plan)).toBe(1);
    expect(plan.stderr).toContain(`the space is the file's (space: ${p.emu.spaceId})`);
    expect(plan.stderr).not.toContain(b.ownerKey);
    const apply = await p.run([...APPLY, "--prune"], asB);
    expect(apply.code, describeRun(apply)).toBe(1);
    // Nothing was asked of B's space at all, and nothing was sent anywhere.
    expect(p.emu.admin.requests().filter((r) => r.path.includes(`/spaces/${b.spaceId}/`))).toEqual([]);
    expect(p.mutations()).toBe(0);
    expect(await cubeNameCounts(apiB)).toEqual({ "b-1": 1, "b-2": 1 });
  } finally {
    await close();
  }
});

test("item 1: space: spc_wrong with CUBE_SPACE_ID unset plans against spc_wrong and fails clearly, never in the key's own space", async () => {
  const p = await project({ "cubeform.yaml": withSpace("spc_wrong", "web") });
  await createPlainCube(p.api, "mine");
  p.emu.admin.clearRequests();
  const plan = await p.run(["plan", ...RATE, "--prune", "--format", "json"]);
  expect(plan.code, describeRun(plan)).toBe(1);
  expect(plan.stderr).toMatch(/403.*not scoped to that space.*the space is the file's \(space: spc_wrong\)/s);
  expect(plan.stdout).toBe("");
  const apply = await p.run([...APPLY, "--prune"]);
  expect(apply.code, describeRun(apply)).toBe(1);
  expect(p.emu.admin.requests().filter((r) => r.path.includes("/spaces/spc_wrong/")).length).toBeGreaterThan(0);
  expect(p.emu.admin.requests().filter((r) => r.path.includes(`/spaces/${p.emu.spaceId}/`))).toEqual([]);
  expect(await cubeNameCounts(p.api)).toEqual({ mine: 1 });
});

test("item 1: the file wins over CUBE_SPACE_ID, with a warning; text plans and applies name the space, JSON carries it", async () => {
  const { p, b, apiB, close } = await twoSpaces();
  try {
    writeFileSync(join(p.cwd, "cubeform.yaml"), withSpace(p.emu.spaceId, "web"));
    const json = await p.run(["plan", ...RATE, "--format", "json"], { CUBE_SPACE_ID: b.spaceId });
    expect(json.code, describeRun(json)).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ spaceId: p.emu.spaceId });
    expect(json.stderr).toContain(`warning: the file says space: ${p.emu.spaceId}, the environment says ${b.spaceId}`);
    const text = await p.run(["plan", ...RATE]);
    expect(text.stdout.split("\n")[0]).toBe(`Space: ${p.emu.spaceId}`);
    const applied = await p.run(APPLY, { CUBE_SPACE_ID: b.spaceId });
    expect(applied.code, describeRun(applied)).toBe(0);
    expect(applied.stdout.split("\n")[0]).toBe(`Space: ${p.emu.spaceId}`);
    expect(await cubeNameCounts(p.api)).toEqual({ web: 1 });
    expect(await cubeNameCounts(apiB)).toEqual({ "b-1": 1, "b-2": 1 });
    const applyJson = await p.run([...APPLY, "--format", "json"]);
    expect(JSON.parse(applyJson.stdout)).toMatchObject({ spaceId: p.emu.spaceId, converged: true });
    // Without space: in the file, CUBE_SPACE_ID names it (here B's, with B's key).
    writeFileSync(join(p.cwd, "cubeform.yaml"), plainFleet("b-1", "b-2"));
    const drift = await p.run(["drift", ...RATE], { CUBE_API_KEY: b.ownerKey, CUBE_SPACE_ID: b.spaceId });
    expect(drift.code, describeRun(drift)).toBe(0);
    expect(drift.stdout.split("\n")[0]).toBe(`Space: ${b.spaceId}`);
  } finally {
    await close();
  }
});
