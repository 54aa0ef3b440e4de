/**
 * The journal of deletions under way (reconciler/session/deletions.ts): a plan leaves out the cubes this machine started
 * deleting, drops the ones the API no longer lists, and removes a journal left empty; with none on the machine it reads
 * nothing. Real files in a temporary state directory.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import type { ObservedState } from "../../engine/index.js";
import { DeletionLog } from "../../reconciler/session/deletions.js";

const temp = mkdtempSync(join(tmpdir(), "cubeform-deletions-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const observedOf = (...cubes: [id: string, name: string][]): ObservedState =>
  ({
    spaceId: "space-1",
    cubes: cubes.map(([id, name]) => ({ cube: { id, name, state: "running" }, domains: [], tcpMappings: [] })),
    reads: 1,
    observedAt: "2026-11-28T00:00:00.000Z",
  }) as unknown as ObservedState;

const journals = (stateDir: string): string[] => {
  try {
    return readdirSync(join(stateDir, "deleting"));
  } catch {
    return [];
  }
};

test("a deletion under way is left out until the API no longer lists the cube; then the journal is gone", async () => {
  const stateDir = join(temp, "under-way");
  const started = new DeletionLog(stateDir, "http://127.0.0.1:1", "space-1");
  await started.started("cube-2", "web-2");
  expect(journals(stateDir)).toHaveLength(1);

  // Another run of this machine (a new log) reads the journal.
  const plan = new DeletionLog(stateDir, "http://127.0.0.1:1", "space-1");
  const both = await plan.exclude(observedOf(["cube-1", "web-1"], ["cube-2", "web-2"]));
  expect(both.deleting).toEqual(["web-2"]);
  expect(both.observed.cubes.map((c) => c.cube.id)).toEqual(["cube-1"]);

  const after = await new DeletionLog(stateDir, "http://127.0.0.1:1", "space-1").exclude(observedOf(["cube-1", "web-1"]));
  expect(after.deleting).toEqual([]);
  expect(journals(stateDir)).toEqual([]);
});

test("with no journal on the machine a plan creates nothing; an empty journal an earlier release left is removed", async () => {
  const fresh = join(temp, "fresh");
  const observed = observedOf(["cube-1", "web-1"]);
  const none = await new DeletionLog(fresh, "http://127.0.0.1:1", "space-1").exclude(observed);
  expect(none).toEqual({ observed, deleting: [] });
  expect(journals(fresh)).toEqual([]);

  const leftover = join(temp, "leftover");
  const log = new DeletionLog(leftover, "http://127.0.0.1:1", "space-1");
  await log.started("cube-9", "gone");
  const [name] = journals(leftover);
  writeFileSync(join(leftover, "deleting", name!), "{}\n");
  expect((await new DeletionLog(leftover, "http://127.0.0.1:1", "space-1").exclude(observed)).deleting).toEqual([]);
  expect(journals(leftover)).toEqual([]);
});
