/**
 * Issue 34, items 2–3: a group with `rollout:` is replaced in batches of at most maxUnavailable, each gated by its health check; a failed check
 * stops the rollout and, with autoRevert, puts the failed members back on the old spec, never touching the others. Health checks ask an HTTP server
 * on 127.0.0.1 whose answer per member the test decides (here: by the member's live image).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, onTestFinished } from "vitest";
import type { Cube } from "../../schema/api.js";
import { pollUntilStopped } from "../support/poll.js";
import { FILE_HEADER } from "./support/cli.js";
import { FAST, FAST_APPLY, test, type CliFixture } from "./support/fixtures.js";

/** A rollout of 10 members with health waits: on a busy machine more than the default 30 s. */
const ROLLOUT_TEST_MS = 120_000;
const OLD = "ubuntu-24.04";
const NEW = "debian-13";

/** Answers /<name>/<id> with 200, or 503 while `failing(image)` says the member's live image is bad. */
async function healthServer(fx: CliFixture, failing: (image: string) => boolean): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    const [, name, id] = (req.url ?? "").split("/");
    asked.push(name ?? "");
    fx.api.getCube(id ?? "").then(
      (cube) => res.writeHead(failing(cube.image) ? 503 : 200).end(),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/{name}/{id}`, asked };
}

function fleet(image: string, rollout: string): string {
  return `${FILE_HEADER.replace(`image: ${OLD}`, `image: ${image}`)}  - name: web
    replicas: 10
    rollout:
${rollout}`;
}

/** A rollout of batches of 2, each member answering `healthUrl` for 0.3 s within `deadline`; `moreLines` go before the check. */
const httpCheckedRollout = (healthUrl: string, deadline: string, moreLines = "") => `      maxUnavailable: 2
${moreLines}      healthCheck:
        http: { url: "${healthUrl}", expectStatus: 200 }
        healthyFor: 300ms
        deadline: ${deadline}
`;

const write = (fx: CliFixture, text: string): void => writeFileSync(join(fx.cwd, "cubeform.yaml"), text);

interface Poll {
  members: Cube[];
}

/** Lists the space every 200 ms until stopped: what a user watching the fleet would see. */
const poller = (fx: CliFixture) =>
  pollUntilStopped<Poll>(async () => {
    const listed = await fx.api.listCubes().catch(() => undefined);
    return listed && { members: listed.filter((c) => c.state !== "deleted" && c.name.startsWith("web-")) };
  });

const runningOn = (poll: Poll, image: string): number => poll.members.filter((c) => c.state === "running" && c.image === image).length;
const down = (poll: Poll): number => 10 - poll.members.filter((c) => c.state === "running").length;

test(
  "10 members, maxUnavailable 2, image changed: never more than 2 missing or not running at any poll; all 10 on the new image at the end",
  async ({ fx }) => {
    const health = await healthServer(fx, () => false);
    const rollout = httpCheckedRollout(health.url, "20s");
    write(fx, fleet(OLD, rollout));
    expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);

    write(fx, fleet(NEW, rollout));
    const planned = await fx.cli(["plan", "--allow-replace", ...FAST]);
    expect(planned.stdout).toContain("rollout: 5 batches of at most 2, each passing its http check for 0.3 s within 20 s");
    expect(planned.stdout).not.toContain("warning:");
    expect(planned.stdout.replace(/\s+/g, " "), "the estimate counts each batch's waits").toContain(
      "of rollout waits (5 batches one after another, each waiting for its members' deletion, boot and healthyFor)",
    );

    const watch = poller(fx);
    const applied = await fx.cli(["apply", "--auto-approve", "--allow-replace", ...FAST_APPLY]);
    const polls = await watch.stop();
    expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("batch 5 of 5: web-9, web-10 healthy");
    expect(polls.length).toBeGreaterThan(3);
    expect(Math.max(...polls.map(down)), "members missing or not running at one poll").toBeLessThanOrEqual(2);
    const end = (await fx.api.listCubes()).filter((c) => c.state !== "deleted");
    expect(end).toHaveLength(10);
    expect(end.every((c) => c.image === NEW && c.state === "running")).toBe(true);
    expect(new Set(health.asked)).toEqual(new Set(Array.from({ length: 10 }, (_, i) => `web-${i + 1}`)));
  },
  ROLLOUT_TEST_MS,
);

test(
  "a new image that fails its http check, canary 1, autoRevert: exactly 1 member ever runs it, ≥ 9 healthy at every poll, all 10 back on the old image, exit 1 naming the member and the check",
  async ({ fx }) => {
    const health = await healthServer(fx, (image) => image === NEW);
    const rollout = httpCheckedRollout(health.url, "5s", "      canary: 1\n      autoRevert: true\n");
    write(fx, fleet(OLD, rollout));
    expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
    const before = new Map((await fx.api.listCubes()).map((c) => [c.name, c.id]));

    write(fx, fleet(NEW, rollout));
    const watch = poller(fx);
    const applied = await fx.cli(["apply", "--auto-approve", "--allow-replace", ...FAST_APPLY]);
    const polls = await watch.stop();
    expect(applied.exitCode).toBe(1);
    expect(applied.stdout).toContain("batch 1 of 6 (canary) of group web: member web-1 failed (http check");
    expect(applied.stdout).toContain("(expected 200)");
    expect(applied.stdout).toContain("reverted web-1 (image ubuntu-24.04) to the last healthy spec");
    expect(applied.stdout).toContain("the members not yet replaced were not touched: the group is on the old spec");

    const onNew = new Set(polls.flatMap((p) => p.members.filter((c) => c.image === NEW).map((c) => c.id)));
    expect(onNew.size, "cubes ever seen on the new image").toBe(1);
    expect(Math.min(...polls.map((p) => runningOn(p, OLD))), "healthy members at the worst poll").toBeGreaterThanOrEqual(9);
    const end = (await fx.api.listCubes()).filter((c) => c.state !== "deleted");
    expect(end).toHaveLength(10);
    expect(end.every((c) => c.image === OLD && c.state === "running")).toBe(true);
    // Only the canary was touched: every other member is the cube it was.
    for (const cube of end.filter((c) => c.name !== "web-1")) expect(cube.id).toBe(before.get(cube.name));
  },
  ROLLOUT_TEST_MS,
);

test(
  "an image whose cubes end in state error (the emulator's image fault), running check: the canary fails at once and is reverted",
  async ({ fx }) => {
    const rollout = `      canary: 1
      autoRevert: true
      healthCheck:
        running: true
        healthyFor: 200ms
        deadline: 30s
`;
    write(fx, fleet(OLD, rollout));
    expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
    fx.emulator.admin.setImageFault(NEW, "error");
    write(fx, fleet(NEW, rollout));
    const started = Date.now();
    const applied = await fx.cli(["apply", "--auto-approve", "--allow-replace", ...FAST_APPLY]);
    expect(applied.exitCode).toBe(1);
    expect(Date.now() - started, "failed at the error state, not at the 30 s deadline").toBeLessThan(20_000);
    expect(applied.stdout).toMatch(
      /member web-1 failed \(running check, healthy for 200ms within 30s\): the new cube \S+ is in state error/,
    );
    const end = (await fx.api.listCubes()).filter((c) => c.state !== "deleted");
    expect(end.every((c) => c.image === OLD && c.state === "running")).toBe(true);
  },
  ROLLOUT_TEST_MS,
);
