/**
 * Ctrl-C during an apply (issue 10 item 6): the first signal is acknowledged at once, nothing
 * new is sent (not even the request waiting for its rate-limit slot), the request in flight
 * finishes, what was done and not done is reported, exit 130. A second signal exits at once.
 */
import { expect, test } from "vitest";
import {
  cubeNameCounts,
  describeRun,
  holdingProxy,
  plainFleet,
  project,
  waitFor,
  type Child,
  type HoldingProxy,
  type Project,
} from "./support.js";

const TWO_CUBES = plainFleet("first", "second");

/** An apply of TWO_CUBES whose first create is held on the wire, sent SIGINT, and seen acknowledging it. */
async function applyStoppedMidCreate(): Promise<{ p: Project; proxy: HoldingProxy; apply: Child }> {
  const p = await project({ "cubeform.yaml": TWO_CUBES });
  const proxy = await holdingProxy(p.emu, (method, path) => method === "POST" && path.endsWith("/cubes"));
  const apply = p.start(["apply", "--auto-approve", "--rate-limit", "1000/60", "--poll-interval", "20"], { CUBE_API_URL: proxy.url });
  await proxy.held;
  apply.process.kill("SIGINT");
  await waitFor(() => apply.stderr().includes("SIGINT: stopping."), { timeoutMs: 2_000, message: "the first signal to be acknowledged" });
  return { p, proxy, apply };
}

test("SIGINT while a create waits for its rate-limit slot: said at once, that create is never sent, exit 130 with done / not done", async () => {
  const p = await project({ "cubeform.yaml": TWO_CUBES });
  // 1 mutation per minute: the second create waits ~61 s for its slot.
  const apply = p.start(["apply", "--auto-approve", "--rate-limit", "1/60", "--poll-interval", "20"]);
  await waitFor(() => apply.stdout().includes("✓ create-cube cube/first"), { timeoutMs: 15_000, message: "the first create" });
  await waitFor(() => p.emu.admin.requests().some((r) => r.method === "GET" && r.path.endsWith("/cubes")), { timeoutMs: 5_000 });
  const signalledAt = Date.now();
  apply.process.kill("SIGINT");
  await waitFor(() => apply.stderr().includes("SIGINT: stopping. Nothing new will be sent"), {
    timeoutMs: 2_000,
    message: "the stop to be acknowledged at once",
  });
  const run = await apply.exited;
  expect(Date.now() - signalledAt).toBeLessThan(10_000);
  expect(run.code, describeRun(run)).toBe(130);
  expect(run.stdout).toMatch(/Stopped: 1 of \d+ steps done/);
  expect(run.stdout).toContain("done:     create-cube cube/first");
  expect(run.stdout).toContain("not done: create-cube cube/second");
  expect(run.stdout).not.toContain("The space matches the file.");
  expect(p.emu.admin.requests().filter((r) => r.method === "POST" && r.path.endsWith("/cubes"))).toHaveLength(1);
  expect(await cubeNameCounts(p.api)).toEqual({ first: 1 });
});

test("SIGINT with a create in flight lets it finish; a second SIGINT exits at once, saying so", async () => {
  const { apply } = await applyStoppedMidCreate();
  expect(apply.process.exitCode).toBeNull();
  apply.process.kill("SIGINT");
  const run = await apply.exited;
  expect(run.code, describeRun(run)).toBe(130);
  expect(run.stderr).toContain("SIGINT again: exiting at once. A request in flight may or may not have been carried out");
});

test("SIGINT with a create in flight: the create completes and is reported done, the next is not sent", async () => {
  const { p, proxy, apply } = await applyStoppedMidCreate();
  expect(await proxy.release()).toBe(201);
  const run = await apply.exited;
  expect(run.code, describeRun(run)).toBe(130);
  expect(run.stdout).toMatch(/Stopped: 1 of \d+ steps done/);
  expect(await cubeNameCounts(p.api)).toEqual({ first: 1 });
});
