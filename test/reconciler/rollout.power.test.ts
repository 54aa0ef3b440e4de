/**
 * Issue 34, item 2: a rollout works on in-place changes that stop or wake (boot) a member too: with `rollout:`, changing a group's `power` goes
 * batch by batch, each batch gated (woken members by their health check, stopped ones once stopped), never the whole group at once.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { Cube } from "../../schema/api.js";
import { FILE_HEADER } from "./support/cli.js";
import { FAST, FAST_APPLY, test, type CliFixture } from "./support/fixtures.js";

const fleet = (power: string): string => `${FILE_HEADER}  - name: web
    replicas: 4
    power: ${power}
    rollout:
      maxUnavailable: 1
      healthCheck: { running: true, healthyFor: 200ms, deadline: 30s }
`;

const write = (fx: CliFixture, text: string): void => writeFileSync(join(fx.cwd, "cubeform.yaml"), text);

/** Lists the members every 50 ms until stopped. */
function poller(fx: CliFixture): { stop(): Promise<Cube[][]> } {
  const polls: Cube[][] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      polls.push((await fx.api.listCubes()).filter((c) => c.state !== "deleted"));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return { stop: async () => ((running = false), await loop, polls) };
}

test("power: stopped → running with rollout maxUnavailable 1: 4 batches of one wake each, at most 1 member booting at any poll; and back to stopped in batches", async ({
  fx,
}) => {
  write(fx, fleet("stopped"));
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY])).exitCode).toBe(0);
  expect((await fx.api.listCubes()).every((c) => c.state === "stopped")).toBe(true);

  write(fx, fleet("running"));
  const planned = await fx.cli(["plan", ...FAST]);
  expect(planned.stdout).toContain("rollout: 4 batches of at most 1");
  fx.emulator.admin.setClockSpeed(20);
  const watch = poller(fx);
  const woken = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  const polls = await watch.stop();
  expect(woken.exitCode, woken.stdout + woken.stderr).toBe(0);
  expect(woken.stdout).toContain("batch 1 of 4: replacing web-1");
  expect(woken.stdout).toContain("batch 4 of 4: web-4 healthy");
  const booting = polls.map((poll) => poll.filter((c) => c.state === "booting").length);
  expect(Math.max(...booting), "members booting at one poll").toBe(1);
  expect((await fx.api.listCubes()).every((c) => c.state === "running")).toBe(true);
  // The order of the wakes: each batch's member only after the one before ran.
  const wakes = fx.emulator.admin.requests().filter((r) => r.method === "POST" && r.path.endsWith("/wake"));
  expect(wakes).toHaveLength(4);

  write(fx, fleet("stopped"));
  const watchDown = poller(fx);
  const stopped = await fx.cli(["apply", "--auto-approve", ...FAST_APPLY]);
  const downPolls = await watchDown.stop();
  fx.emulator.admin.setClockSpeed(200);
  expect(stopped.exitCode, stopped.stdout + stopped.stderr).toBe(0);
  expect(stopped.stdout).toContain("batch 4 of 4: web-4 healthy");
  const stopping = downPolls.map((poll) => poll.filter((c) => c.state === "stopping").length);
  expect(Math.max(...stopping), "members stopping at one poll").toBe(1);
  expect((await fx.api.listCubes()).every((c) => c.state === "stopped")).toBe(true);
}, 180_000);
