/**
 * The leak previews are known for: 100 pull requests opened and closed, 10 % of the close events lost (no `down`), then one
 * nightly `sweep`: no preview cube is left, and no other cube of the space received a single mutating request. The first cycles
 * and the sweep run the built bin; the rest run the same CLI in process (main(argv, io)), against the same emulator over HTTP.
 */
import { describe, expect, test } from "vitest";
import { runCli } from "../reconciler/support/cli.js";
import { describeRun, project, RATE, SSH_KEY } from "./support.js";

const FAST = [...RATE, "--poll-interval", "20"];
const FILE = `apiVersion: cubeform/v1
preview:
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  maxMonthly: 100
cubes:
  - name: app
    image: ubuntu-24.04
    resources: { vcpu: 2, ramGb: 4, diskGb: 20 }
    sshPublicKey: ${SSH_KEY}
`;
const CYCLES = 100;
const SPAWNED = 3;

describe("preview up/down cycles with lost close events, then one sweep", () => {
  test(`${CYCLES} cycles, every 10th down skipped: the sweep leaves 0 preview cubes and touches 0 other cubes`, {
    timeout: 300_000,
  }, async () => {
    const p = await project({ "cubeform.yaml": FILE });
    // Boots and deletions in a few ms: the cycles measure cubeform, not the emulated machines.
    p.emu.admin.setClockSpeed(5000);
    const others = await Promise.all(
      ["app", "web", "app-pr-x", "pr-3", "app-pr-03"].map((name) =>
        p.api.createCube(
          { name, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
          { idempotencyKey: `other-${name}` },
        ),
      ),
    );
    const otherIds = new Set(others.map((c) => c.id));
    const before = p.emu.admin.requests().length;
    const run = async (i: number, args: string[]) => {
      if (i <= SPAWNED) {
        const r = await p.run(args);
        return { code: r.code, text: describeRun(r) };
      }
      const r = await runCli(args, { cwd: p.cwd, env: p.env });
      return { code: r.exitCode, text: `${r.stdout}\n${r.stderr}` };
    };
    let skipped = 0;
    for (let i = 1; i <= CYCLES; i++) {
      const up = await run(i, ["preview", "up", "--id", `pr-${i}`, ...FAST]);
      expect(up.code, up.text).toBe(0);
      if (i % 10 === 0) {
        skipped++;
        continue;
      }
      const down = await run(i, ["preview", "down", "--id", `pr-${i}`, ...FAST]);
      expect(down.code, down.text).toBe(0);
    }
    const leaked = (await p.api.listCubes()).filter((c) => c.state !== "deleted" && /-pr-\d+$/.test(c.name) && !otherIds.has(c.id));
    expect(leaked.map((c) => c.name).sort()).toEqual(Array.from({ length: skipped }, (_, k) => `app-pr-${(k + 1) * 10}`).sort());

    const sweep = await p.run(["preview", "sweep", "--keep", "", "-o", "json", ...FAST]);
    expect(sweep.code, describeRun(sweep)).toBe(0);
    expect(JSON.parse(sweep.stdout).removed).toHaveLength(skipped);

    const left = (await p.api.listCubes()).filter((c) => c.state !== "deleted");
    expect(left.filter((c) => !otherIds.has(c.id))).toEqual([]);
    expect(left.map((c) => c.id).sort()).toEqual([...otherIds].sort());
    const mutations = p.emu.admin
      .requests()
      .slice(before)
      .filter((r) => r.mutating);
    expect(mutations.length).toBeGreaterThanOrEqual(CYCLES + CYCLES);
    expect(mutations.filter((r) => [...otherIds].some((id) => r.path.includes(id)))).toEqual([]);
  });
});
