/**
 * Issue 34, item 4: `watch --apply` runs a group's rollout like apply (one batch at a time, at most maxUnavailable down) and says so while it runs:
 * `/readyz` stays 200 (the process serves) with a `rollout_in_progress` line, and `cubeform_rollout_in_progress{group="web"}` is 1, then 0.
 */
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { listenOnLoopback, project, waitFor, rolloutFleet } from "./support.js";
import { fetchText as get, metricsBase, watchArgs } from "./support/watch.js";

const TEST_MS = 180_000;

const fleet = (image: string, healthUrl: string): string =>
  rolloutFleet(image, healthUrl, { replicas: 4, maxUnavailable: 1, healthyFor: "200ms", deadline: "60s", allowReplace: true });

const gauge = (metrics: string): string | undefined => /^cubeform_rollout_in_progress\{group="web"\} (\S+)$/m.exec(metrics)?.[1];

test(
  "watch --apply: a rollout under way is in /readyz's detail (still 200) and in cubeform_rollout_in_progress; one batch at a time",
  async () => {
    // The health check fails until the test has seen the rollout reported: the first batch waits in its check meanwhile.
    let healthy = false;
    const server = createServer((_req, res) => res.writeHead(healthy ? 200 : 503).end());
    const url = `http://127.0.0.1:${await listenOnLoopback(server)}/{name}`;

    healthy = true;
    const p = await project({ "cubeform.yaml": fleet("ubuntu-24.04", url) });
    const watch = p.start(watchArgs("300ms", "--apply"));
    const base = await metricsBase(watch);
    await waitFor(
      async () => (await p.api.listCubes()).filter((c) => c.state === "running").length === 4 && (await get(`${base}/readyz`))[0] === 200,
      {
        timeoutMs: 60_000,
        message: "4 members running and ready",
      },
    );
    expect((await get(`${base}/readyz`))[1]).not.toContain("rollout_in_progress");

    let worst = 0;
    let polling = true;
    const polls = (async () => {
      while (polling) {
        const listed = await p.api.listCubes().catch(() => []);
        worst = Math.max(worst, 4 - listed.filter((c) => c.state === "running").length);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    healthy = false;
    writeFileSync(join(p.cwd, "cubeform.yaml"), fleet("debian-13", url));
    const [status, body] = await waitFor(
      async () => {
        const answer = await get(`${base}/readyz`);
        return answer[1].includes("rollout_in_progress") ? answer : undefined;
      },
      { timeoutMs: 60_000, message: "rollout_in_progress in /readyz" },
    );
    expect(status, "a rollout is a detail of readiness, not a reason to be unready").toBe(200);
    expect(body).toMatch(/^ok\nrollout_in_progress: web \(batch 1 of 4, (replacing|checking)\)\n$/);
    expect(gauge((await get(`${base}/metrics`))[1])).toBe("1");

    healthy = true;
    await waitFor(
      async () => {
        const listed = (await p.api.listCubes()).filter((c) => c.state !== "deleted");
        return listed.length === 4 && listed.every((c) => c.image === "debian-13" && c.state === "running");
      },
      { timeoutMs: 90_000, message: "all 4 members on the new image" },
    );
    await waitFor(async () => gauge((await get(`${base}/metrics`))[1]) === "0", { timeoutMs: 30_000, message: "the gauge back to 0" });
    const after = await get(`${base}/readyz`);
    expect(after[0]).toBe(200);
    expect(after[1]).not.toContain("rollout_in_progress");
    polling = false;
    await polls;
    expect(worst, "members down at one poll (maxUnavailable 1)").toBeLessThanOrEqual(1);
    expect(watch.stdout()).toContain("batch 4 of 4: web-4 healthy");
    expect(watch.process.exitCode).toBeNull();
  },
  TEST_MS,
);
