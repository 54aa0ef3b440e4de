/**
 * Issue 31 item 12: day-2 commands find cubes and snapshots by name, so `upload --name` and
 * `snapshot take --name` refuse a name already taken (a second one would make every later
 * command on that name fail as ambiguous), saying which one holds it and sending nothing.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { waitFor } from "../support/wait.js";
import { FAST, test } from "./support/fixtures.js";
import { SSH_KEY } from "./support/cli.js";

const SIZE = ["--vcpu", "1", "--ram-gb", "1", "--disk-gb", "10"];

describe("names already taken", () => {
  test("upload NAME twice: the second refuses (exit 1), nothing uploaded, one cube of that name", async ({ fx }) => {
    writeFileSync(join(fx.cwd, "web.cube"), randomBytes(1024 * 1024 + 5));
    const upload = () => fx.cli(["upload", "web.cube", "--name", "restored", "--ssh-key", SSH_KEY, ...SIZE, "--format", "json", ...FAST]);
    const first = await upload();
    expect(first.exitCode, first.stderr).toBe(0);
    const { cubeId } = JSON.parse(first.stdout) as { cubeId: string };
    const mutations = fx.mutations();

    const second = await upload();
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`a cube named "restored" already exists in this space (${cubeId}, `);
    expect(second.stderr).toContain("nothing was uploaded; choose another --name, or delete that cube first");
    expect(second.stdout).toBe("");
    expect(fx.mutations()).toBe(mutations);
    expect((await fx.api.listCubes()).filter((c) => c.name === "restored")).toHaveLength(1);
    // Every command on the name still works.
    expect((await fx.cli(["cube", "show", "restored", ...FAST])).exitCode).toBe(0);
  });

  test("snapshot take --name s1 twice: the second refuses (exit 1), one s1; another name still works", async ({ fx }) => {
    const web = await fx.api.createCube(
      { name: "web", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
      { idempotencyKey: "create-web" },
    );
    await waitFor(async () => ((await fx.api.getCube(web.id)).state === "running" ? true : undefined), { timeoutMs: 15_000 });
    const first = await fx.cli(["snapshot", "take", "web", "--name", "s1", "--wait", "--interval", "20ms", "--format", "json", ...FAST]);
    expect(first.exitCode, first.stderr).toBe(0);
    const s1 = JSON.parse(first.stdout) as { id: string };
    const mutations = fx.mutations();

    const second = await fx.cli(["snapshot", "take", "web", "--name", "s1", ...FAST]);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`cube "web" already has a snapshot named "s1" (${s1.id}, complete, taken `);
    expect(second.stderr).toContain(
      `no snapshot was taken; choose another --name, or delete that one first (cubeform snapshot delete ${web.id} ${s1.id})`,
    );
    expect(fx.mutations()).toBe(mutations);
    expect((await fx.api.listSnapshots(web.id)).filter((s) => s.name === "s1")).toHaveLength(1);

    const other = await fx.cli(["snapshot", "take", "web", "--name", "s2", ...FAST]);
    expect(other.exitCode, other.stderr).toBe(0);
    expect((await fx.cli(["snapshot", "restore", "web", "s1", "--yes", ...FAST])).exitCode).toBe(0);
  });
});
