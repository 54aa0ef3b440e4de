/**
 * CubeGroup: a group of 10 replicas is ONE resource to Pulumi's engine (driven here over gRPC as the engine drives it), and a new image rolls
 * out inside its update in batches of maxUnavailable: polled every 200 ms, never more than 2 members missing or not running.
 * check() names the resource's inputs (replicas, domains[0].hostname, rollout.maxUnavailable), never a CLI flag.
 */
import { describe, expect, it } from "vitest";
import type { Cube } from "../../schema/api.js";
import { pollUntilStopped } from "../support/poll.js";
import { DIFF_SOME } from "./harness.js";
import { SSH_KEY, stackAndClientForFile, type DirectClient, type Resource, type Stack } from "./support/stack.js";

const OLD = "ubuntu-24.04";
const NEW = "debian-13";
const ROLLOUT_TEST_MS = 180_000;

let stack: Stack;
let api: DirectClient;
// Pacing is not what this test is about: a budget that never makes the rollout wait.
const NEVER_WAITS = { emulatorRateLimit: { limit: 1000, windowMs: 1000 }, providerRateLimit: "1000/1" };
stackAndClientForFile((file) => ({ stack, api } = file), NEVER_WAITS);

function groupInputs(image: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "web",
    replicas: 10,
    image,
    resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
    sshPublicKey: SSH_KEY,
    rollout: { maxUnavailable: 2, healthCheck: { running: true, healthyFor: "300ms", deadline: "60s" } },
    ...extra,
  };
}

const members = async (): Promise<Cube[]> =>
  (await api.listCubes()).filter((cube) => cube.state !== "deleted" && /^web-\d+$/.test(cube.name));

/** Lists the space every 200 ms until stopped: what a user watching the fleet would see. */
const poller = () => pollUntilStopped(members);

describe("CubeGroup", () => {
  let group: Resource;

  it("check() names the resource's inputs, not CLI flags", async () => {
    const urn = stack.urn("CubeGroup", "bad");
    const failures = async (inputs: Record<string, unknown>) =>
      (await stack.plugin.check(urn, undefined, stack.withProvider("CubeGroup", inputs))).failures;
    expect(await failures(groupInputs(OLD, { replicas: 0 }))).toEqual([{ property: "replicas", reason: expect.stringContaining(">=1") }]);
    expect((await failures(groupInputs(OLD, { rollout: { maxUnavailable: 0 } })))[0]?.property).toBe("rollout.maxUnavailable");
    const shared = await failures(groupInputs(OLD, { domains: [{ hostname: "web.example.com", port: 80 }] }));
    expect(shared).toEqual([{ property: "domains[0].hostname", reason: expect.stringContaining("put {i} or {name} in it") }]);
    const all = [...shared, ...(await failures(groupInputs(OLD, { replicas: 0 })))];
    for (const failure of all) expect(failure.reason).not.toMatch(/--[a-z]/);
  });

  it(
    "creates 10 members as one resource",
    async () => {
      group = await stack.create("CubeGroup", "web", groupInputs(OLD));
      expect(group.id).toBe("web");
      const outs = group.outs.members as { name: string; state: string; image: string }[];
      expect(outs.map((m) => m.name)).toEqual(Array.from({ length: 10 }, (_, i) => `web-${i + 1}`));
      expect(outs.every((m) => m.state === "running" && m.image === OLD)).toBe(true);
    },
    ROLLOUT_TEST_MS,
  );

  it(
    "rolls a new image out inside the update: an update (no replace), never more than 2 members down at a poll, all 10 on the new image",
    async () => {
      const before = new Set((await members()).map((cube) => cube.id));
      const diff = await stack.diff(group, groupInputs(NEW));
      expect(diff).toEqual({ changes: DIFF_SOME, replaces: [], deleteBeforeReplace: false });

      const watch = poller();
      const { resource } = await stack.update(group, groupInputs(NEW));
      const polls = await watch.stop();
      group = resource;

      expect(polls.length).toBeGreaterThan(5);
      const down = polls.map((poll) => 10 - poll.filter((cube) => cube.state === "running").length);
      expect(Math.max(...down), "members missing or not running at one poll").toBeLessThanOrEqual(2);
      expect(Math.max(...down), "the rollout did replace members while polled").toBeGreaterThan(0);
      const end = await members();
      expect(end).toHaveLength(10);
      expect(end.every((cube) => cube.image === NEW && cube.state === "running")).toBe(true);
      expect(end.some((cube) => before.has(cube.id))).toBe(false);
      expect((group.outs.members as { image: string }[]).every((m) => m.image === NEW)).toBe(true);
      expect(await stack.diff(group, groupInputs(NEW))).toMatchObject({ changes: 1 });
    },
    ROLLOUT_TEST_MS,
  );

  it(
    "scales down removing the highest indexes, and delete removes every member",
    async () => {
      const { resource } = await stack.update(group, groupInputs(NEW, { replicas: 4 }));
      group = resource;
      expect((await members()).map((cube) => cube.name).sort()).toEqual(["web-1", "web-2", "web-3", "web-4"]);
      await stack.destroy(group);
      expect(await members()).toEqual([]);
    },
    ROLLOUT_TEST_MS,
  );
});
