/**
 * A cube deleted out of band is re-created by the next `watch --apply` round: the first create's key (derived, so two writers agree) is
 * answered from the API's store with the deleted cube; cubeform sees it gone and creates anew with the next key, instead of waiting on a 404.
 */
import { expect, test } from "vitest";
import { RATE, describeRun, plainFleet, project, waitFor } from "./support.js";

test("watch --apply re-creates a cube deleted out of band within one round, not after --wait-timeout", async () => {
  const p = await project({ "cubeform.yaml": plainFleet("web") });
  const watch = p.start(["watch", "--apply", "--interval", "200ms", ...RATE, "--poll-interval", "20", "--wait-timeout", "120s"]);
  await waitFor(() => watch.stdout().includes(": in sync"), { timeoutMs: 30_000, message: "watch to converge" });
  const [old] = await p.api.listCubes();
  await p.api.deleteCube(old!.id);
  const started = Date.now();
  const live = await waitFor(
    async () => (await p.api.listCubes()).find((c) => c.name === "web" && c.state === "running" && c.id !== old!.id),
    {
      timeoutMs: 60_000,
      message: "watch to re-create web",
    },
  ).catch((error: Error) => {
    throw new Error(`${error.message}\nstdout:\n${watch.stdout()}\nstderr:\n${watch.stderr()}`);
  });
  expect(live.id).not.toBe(old!.id);
  const repairedInMs = Date.now() - started;
  console.info(`out-of-band delete repaired by watch --apply in ${repairedInMs} ms (--wait-timeout 120s)`);
  expect(repairedInMs).toBeLessThan(60_000);
  await waitFor(() => watch.stdout().split(": in sync").length > 2, { timeoutMs: 30_000, message: "watch in sync again" });
  expect(watch.stdout()).toContain(
    `cube/web: the create's key was answered with ${old!.id}, which is gone: creating it again with a new key`,
  );
  const creates = p.emu.admin.requests().filter((r) => r.method === "POST" && r.path.endsWith("/cubes"));
  expect(creates.map((r) => r.replayed)).toEqual([false, true, false]);
  watch.process.kill("SIGTERM");
  const run = await watch.exited;
  expect(run.code, describeRun(run)).toBe(0);
  expect(run.stdout).not.toContain("wait_timeout");
}, 180_000);
