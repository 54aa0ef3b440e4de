/**
 * Issue 34, item 4: the journal records a rollout's batch in flight; an apply killed (kill -9) in a delete, after a create, or in a health wait, and
 * run again, resumes there: 0 duplicate cubes, 0 members left deleted, never more than maxUnavailable down across the restarts.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { APPLY, cubeNameCounts, describeRun, project, waitFor, type Child, rolloutFleet } from "./support.js";

/** Several CLI processes one after the other: on a busy machine more than the default 30 s. */
const SPAWNING_TEST_MS = 180_000;

const fleet = (image: string, healthUrl: string): string =>
  rolloutFleet(image, healthUrl, { replicas: 10, maxUnavailable: 2, healthyFor: "400ms", deadline: "30s" });

test(
  "kill -9 at 5 points of a rollout (deletes, creates, health waits), each followed by a rerun: 0 duplicates, 0 lost members, at most 2 down at every poll",
  async () => {
    let asked = 0;
    const server = createServer((_req, res) => {
      asked += 1;
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/{name}`;

    const p = await project({ "cubeform.yaml": fleet("ubuntu-24.04", url) });
    const first = await p.run(APPLY);
    expect(first.code, describeRun(first)).toBe(0);
    writeFileSync(join(p.cwd, "cubeform.yaml"), fleet("debian-13", url));

    let polling = true;
    let worst = 0;
    const polls = (async () => {
      while (polling) {
        const listed = await p.api.listCubes().catch(() => undefined);
        if (listed === undefined) break;
        const members = listed.filter((c) => c.state !== "deleted");
        worst = Math.max(worst, 10 - members.filter((c) => c.state === "running").length);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();

    const requests = () => p.emu.admin.requests();
    const deletes = () => requests().filter((r) => r.method === "DELETE" && r.status === 200).length;
    const creates = () => requests().filter((r) => r.method === "POST" && /\/cubes$/.test(r.path) && r.status === 201).length;
    // Each point: what must have happened since the run started before it is killed.
    const points: { name: string; reached: (start: { deletes: number; creates: number; asked: number }) => boolean }[] = [
      { name: "in a delete", reached: (s) => deletes() > s.deletes },
      { name: "after a create", reached: (s) => creates() > s.creates },
      { name: "in a health wait", reached: (s) => asked > s.asked },
      { name: "in a delete of a later batch", reached: (s) => deletes() > s.deletes + 1 },
      { name: "in a health wait again", reached: (s) => asked > s.asked + 1 },
    ];
    const allow = ["--allow-replace"];
    for (const point of points) {
      const start = { deletes: deletes(), creates: creates(), asked };
      const child: Child = p.start([...APPLY, ...allow]);
      let ended = false;
      void child.exited.then(() => (ended = true));
      await waitFor(() => point.reached(start) || ended, { timeoutMs: 30_000, message: `the run to get ${point.name}` });
      child.process.kill("SIGKILL");
      await child.exited;
      const counts = await cubeNameCounts(p.api);
      expect(
        Object.values(counts).every((n) => n === 1),
        `duplicates after a kill ${point.name}: ${JSON.stringify(counts)}`,
      ).toBe(true);
    }
    const last = await p.run([...APPLY, ...allow]);
    polling = false;
    await polls;
    expect(last.code, describeRun(last)).toBe(0);
    const end = (await p.api.listCubes()).filter((c) => c.state !== "deleted");
    expect(end.map((c) => c.name).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `web-${i + 1}`).sort());
    expect(end.every((c) => c.image === "debian-13" && c.state === "running")).toBe(true);
    expect(worst, "members missing or not running at the worst poll, across the kills").toBeLessThanOrEqual(2);
  },
  SPAWNING_TEST_MS,
);

test(
  "kill -9 while the canary's failing check is being waited for: the rerun checks that member first and puts it back (autoRevert), so no member is left on the bad image",
  async () => {
    const p = await project({});
    const server = createServer((req, res) => {
      const id = (req.url ?? "").split("/")[2] ?? "";
      p.api.getCube(id).then(
        (cube) => res.writeHead(cube.image === "debian-13" ? 503 : 200).end(),
        () => res.writeHead(404).end(),
      );
    });
    let asked = 0;
    server.on("request", () => (asked += 1));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/{name}/{id}`;
    const file = (image: string): string =>
      fleet(image, url)
        .replace("maxUnavailable: 2", "maxUnavailable: 2\n      canary: 1\n      autoRevert: true")
        .replace("deadline: 30s", "deadline: 3s");
    writeFileSync(join(p.cwd, "cubeform.yaml"), file("ubuntu-24.04"));
    expect((await p.run(APPLY)).code).toBe(0);
    const before = new Map((await p.api.listCubes()).map((c) => [c.name, c.id]));

    writeFileSync(join(p.cwd, "cubeform.yaml"), file("debian-13"));
    const killed = p.start([...APPLY, "--allow-replace"]);
    await waitFor(() => asked > 0, { timeoutMs: 30_000, message: "the canary's health check to be asked" });
    killed.process.kill("SIGKILL");
    await killed.exited;
    expect((await p.api.listCubes()).find((c) => c.name === "web-1")?.image, "the killed run left the canary on the new image").toBe(
      "debian-13",
    );

    const rerun = await p.run([...APPLY, "--allow-replace"]);
    expect(rerun.code, describeRun(rerun)).toBe(1);
    expect(rerun.stdout).toContain("batch 1 of 6 of group web: member web-1 failed");
    expect(rerun.stdout).toContain("reverted web-1 (image ubuntu-24.04)");
    const end = (await p.api.listCubes()).filter((c) => c.state !== "deleted");
    expect(end).toHaveLength(10);
    expect(
      end.filter((c) => c.image !== "ubuntu-24.04").map((c) => c.name),
      "members left on the bad image",
    ).toEqual([]);
    for (const cube of end.filter((c) => c.name !== "web-1")) expect(cube.id, `${cube.name} was not touched`).toBe(before.get(cube.name));
  },
  SPAWNING_TEST_MS,
);
