/**
 * watch's probes under an outage (issue 10 item 7): /readyz (= /healthz) follows the last round,
 * /livez the loop; a rejected key ends watch at start whether or not CUBE_SPACE_ID is set.
 */
import { expect, test } from "vitest";
import { describeRun, FLEET, project, RATE, waitFor } from "./support.js";
import { fetchText, metricsBase, watchArgs } from "./support/watch.js";

const WATCH = watchArgs("200ms");

const probe = (base: string, path: string): Promise<[number, string]> => fetchText(`${base}${path}`);

test("an API outage after good rounds turns /readyz and /healthz to 503 while /livez stays 200; they recover with the API", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const watch = p.start(WATCH);
  const base = await metricsBase(watch);
  await waitFor(async () => (await probe(base, "/readyz"))[0] === 200, { timeoutMs: 10_000, message: "ready after a good round" });
  expect(await probe(base, "/healthz")).toEqual([200, "ok\n"]);
  expect(await probe(base, "/livez")).toEqual([200, "ok\n"]);

  // The API answers 503 to everything: every round fails after its retries.
  p.emu.admin.injectFault({ kind: "status", status: 503, times: 1_000_000 });
  const [status, body] = await waitFor(
    async () => {
      const answer = await probe(base, "/readyz");
      return answer[0] === 503 ? answer : undefined;
    },
    { timeoutMs: 20_000, message: "not ready during the outage" },
  );
  expect(status).toBe(503);
  expect(body).toContain("the last round failed");
  expect((await probe(base, "/healthz"))[0]).toBe(503);
  expect(await probe(base, "/livez")).toEqual([200, "ok\n"]);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  expect(Number(/^cubeform_last_success_timestamp_seconds (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);

  p.emu.admin.clearFaults();
  await waitFor(async () => (await probe(base, "/readyz"))[0] === 200, { timeoutMs: 20_000, message: "ready again after the outage" });
  expect(watch.process.exitCode).toBeNull();
});

test.each([
  ["with CUBE_SPACE_ID", true],
  ["without CUBE_SPACE_ID", false],
])("a key the API refuses ends watch at start (%s): exit 1, one clear line", async (_name, withSpace) => {
  const p = await project({ "cubeform.yaml": FLEET });
  const env: Record<string, string> = { CUBE_API_KEY: "kro_wrong_key" };
  if (withSpace) env.CUBE_SPACE_ID = p.emu.spaceId;
  const run = await p.run(["watch", "--interval", "200ms", ...RATE], env);
  expect(run.code, describeRun(run)).toBe(1);
  expect(run.stderr).toMatch(/Error: .*401/);
  expect(run.stderr).not.toContain("kro_wrong_key");
});
