import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { FLEET, cubeNameCounts, describeRun, holdingProxy, journalKeys, project, waitFor, type Child } from "./support.js";
import { fetchText, metricValues, metricsBase, stopWatch, watchArgs } from "./support/watch.js";

const WATCH = watchArgs("200ms");

async function scrape(base: string): Promise<Record<string, number>> {
  const response = await fetch(`${base}/metrics`);
  expect(response.headers.get("content-type")).toContain("text/plain; version=0.0.4");
  return metricValues(await response.text());
}

const health = (base: string): Promise<[number, string]> => fetchText(`${base}/healthz`);

async function stopped(child: Child): Promise<void> {
  const run = await stopWatch(child);
  expect(run.stderr).toContain("stopped: the step under way was finished");
}

test("watch --apply converges, repairs an out-of-band delete, serves metrics and health, and stops cleanly on SIGTERM", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const watch = p.start([...WATCH, "--apply"]);
  const base = await metricsBase(watch);
  await waitFor(() => watch.stdout().includes(": in sync"), { timeoutMs: 20_000, message: "watch to converge" });
  expect(await health(base)).toEqual([200, "ok\n"]);

  const web = (await p.api.listCubes()).find((c) => c.name === "web");
  const postgres = (await p.api.listTcpMappings(web?.id ?? "")).find((m) => m.cubePort === 5432);
  const mutationsBefore = (await scrape(base)).cubeform_mutations_total ?? 0;
  await p.api.deleteTcpMapping(web?.id ?? "", postgres?.id ?? "");
  await waitFor(async () => (await p.api.listTcpMappings(web?.id ?? "")).some((m) => m.cubePort === 5432 && m.label === "postgres"), {
    timeoutMs: 20_000,
    message: "watch to re-create the deleted port",
  });
  // The round's gauges are set before the round is counted: wait for both.
  await waitFor(
    async () => {
      const m = await scrape(base);
      return m.cubeform_drifted_resources === 0 && (m.cubeform_rounds_total ?? 0) >= 2;
    },
    { timeoutMs: 10_000, message: "no drift left" },
  );

  const metrics = await scrape(base);
  expect(metrics.cubeform_rounds_total).toBeGreaterThanOrEqual(2);
  expect(metrics.cubeform_round_errors_total).toBe(0);
  expect(metrics.cubeform_mutations_total).toBe(mutationsBefore + 1);
  expect(metrics.cubeform_blocked_changes).toBe(0);
  expect(metrics.cubeform_last_success_timestamp_seconds).toBeGreaterThan(Date.now() / 1000 - 60);
  expect(await cubeNameCounts(p.api)).toEqual({ web: 1, db: 1 });
  await stopped(watch);
});

test("watch without --apply only reports; a bad file fails its round (/status says why, /readyz stays 200: issue 31 item 3) and the loop recovers when it is fixed", async () => {
  const p = await project({ "cubeform.yaml": "apiVersion: cubeform/v1\ncubes: [\n" });
  const watch = p.start(WATCH);
  const base = await metricsBase(watch);
  await waitFor(async () => ((await scrape(base)).cubeform_round_errors_total ?? 0) >= 1, { timeoutMs: 10_000, message: "a failed round" });
  expect(await health(base)).toEqual([200, "ok\n"]);
  const status = (await (await fetch(`${base}/status`)).json()) as {
    source: { kind: string; files: string[]; failing: boolean; error: string };
    lastRound: { outcome: string };
  };
  expect(status.source).toMatchObject({ kind: "files", files: ["cubeform.yaml"], failing: true });
  expect(status.source.error).toContain("cubeform.yaml is not valid");
  expect(status.lastRound.outcome).toMatch(/source-failed|running/);
  expect(watch.stderr()).toMatch(/cubeform\.yaml:\d+:\d+: /);
  expect(watch.process.exitCode).toBeNull();

  writeFileSync(join(p.cwd, "cubeform.yaml"), FLEET);
  await waitFor(async () => ((await scrape(base)).cubeform_source_failing ?? 1) === 0, {
    timeoutMs: 10_000,
    message: "a round to succeed after the fix",
  });
  await waitFor(() => watch.stdout().includes("changes pending; run with --apply to make them"), {
    timeoutMs: 10_000,
    message: "drift reported",
  });
  expect((await scrape(base)).cubeform_drifted_resources).toBe(6);
  expect(p.mutations()).toBe(0);
  await stopped(watch);
});

test("SIGTERM during an apply round lets the request on the wire finish, runs no further step, and exits 0", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const proxy = await holdingProxy(
    p.emu,
    (method, path, body) => method === "POST" && /\/cubes$/.test(path) && body.includes('"name":"db"'),
  );
  const watch = p.start([...WATCH, "--apply"], { CUBE_API_URL: proxy.url });
  await proxy.held;
  watch.process.kill("SIGTERM");
  expect(await proxy.release()).toBe(201);

  const run = await watch.exited;
  expect(run.code, describeRun(run)).toBe(0);
  expect(run.stdout).toContain("✓ create-cube cube/db");
  expect(run.stdout).not.toMatch(/✓ (attach-domain|create-port)/);
  expect(await cubeNameCounts(p.api)).toEqual({ web: 1, db: 1 });
  expect(journalKeys(p.cwd), "nothing is left half-sent").toEqual({});
});
