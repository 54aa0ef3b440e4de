import { expect, test } from "vitest";
import { APPLY, FLEET, cubeNameCounts, describeRun, holdingProxy, journalKeys, project, waitFor, type Project } from "./support.js";

const isCreate = (r: { method: string; path: string }): boolean => r.method === "POST" && /\/cubes$/.test(r.path);

/** Starts an apply and kills it (SIGKILL) once the API has committed a create of it. */
async function killOnceACreateIsCommitted(p: Project, what: string): Promise<void> {
  const killed = p.start(APPLY);
  await waitFor(() => p.emu.admin.requests().some((r) => isCreate(r) && r.status === 201), { timeoutMs: 15_000, message: what });
  killed.process.kill("SIGKILL");
  await killed.exited;
}

test("apply creates the fleet; a second apply sends zero mutating requests", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const first = await p.run(APPLY);
  expect(first.code, describeRun(first)).toBe(0);
  expect(await cubeNameCounts(p.api)).toEqual({ web: 1, db: 1 });

  p.emu.admin.clearRequests();
  const second = await p.run(APPLY);
  expect(second.code, describeRun(second)).toBe(0);
  expect(p.mutations()).toBe(0);
});

test("an apply killed while a create is on the wire: the rerun reuses the journal's key, so the late create is a replay, not a second cube", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  // The create of "db" reaches the proxy and stays there, as on a slow network; "web" was created before it.
  const proxy = await holdingProxy(
    p.emu,
    (method, path, body) => method === "POST" && /\/cubes$/.test(path) && body.includes('"name":"db"'),
  );
  const killed = p.start(APPLY, { CUBE_API_URL: proxy.url });
  await proxy.held;
  expect(p.emu.admin.requests().filter((r) => isCreate(r) && r.status === 201)).toHaveLength(1);
  const key = journalKeys(p.cwd)["cube/db"];
  expect(key, "the key is written before the request goes out").toBeDefined();
  killed.process.kill("SIGKILL");
  expect((await killed.exited).signal).toBe("SIGKILL");

  const rerun = await p.run(APPLY);
  expect(rerun.code, describeRun(rerun)).toBe(0);
  // Only now does the killed run's create reach the API: same key, so the API answers with the first result.
  expect(await proxy.release()).toBe(201);
  expect(await cubeNameCounts(p.api)).toEqual({ web: 1, db: 1 });
  const withKey = p.emu.admin.requests().filter((r) => r.idempotencyKey === key);
  expect(withKey.map((r) => [r.status, r.replayed])).toEqual([
    [201, false],
    [201, true],
  ]);
  expect(journalKeys(p.cwd)).toEqual({});
});

test("an apply slowed down and killed after its first create: the rerun creates each missing cube once", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  p.emu.admin.injectFault({ kind: "latency", method: "POST", path: "/cubes$", ms: 300, times: 100 });
  await killOnceACreateIsCommitted(p, "a first create to be committed");
  p.emu.admin.clearFaults();

  const rerun = await p.run(APPLY);
  expect(rerun.code, describeRun(rerun)).toBe(0);
  expect(await cubeNameCounts(p.api)).toEqual({ web: 1, db: 1 });
  const again = await p.run(["plan", "--rate-limit", "1000/60"]);
  expect(again.code, describeRun(again)).toBe(0);
});

test("a create whose response is lost after the API committed it, then a kill: no duplicate on the rerun", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  p.emu.admin.injectFault({ kind: "drop-after-commit", method: "POST", path: "/cubes$", times: 1 });
  // The first create is committed and its connection dropped; the child is now waiting to retry it.
  await killOnceACreateIsCommitted(p, "the dropped create to be committed");

  const rerun = await p.run(APPLY);
  expect(rerun.code, describeRun(rerun)).toBe(0);
  expect(await cubeNameCounts(p.api)).toEqual({ web: 1, db: 1 });
  const committed = p.emu.admin.requests().filter((r) => isCreate(r) && r.status === 201 && !r.replayed);
  expect(committed, "one committed create per declared cube").toHaveLength(2);
});
