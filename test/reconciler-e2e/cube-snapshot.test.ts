/**
 * Day-2 commands through the bin against the emulator: `cubeform cube …` (list, show, power,
 * ssh) and `cubeform snapshot …` (take, list, restore, delete); bad input changes nothing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { describeRun, project, RATE, SSH_KEY, tempDir, waitFor, type Project } from "./support.js";

async function runningCube(p: Project, name: string) {
  const cube = await p.api.createCube(
    { name, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: `create-${name}` },
  );
  return waitFor(async () => {
    const now = await p.api.getCube(cube.id);
    return now.state === "running" ? now : undefined;
  });
}

describe("cubeform cube", () => {
  test("list shows every cube with its state (text and json); show names one by name or id", async () => {
    const p = await project();
    const web = await runningCube(p, "web");
    await runningCube(p, "db");
    const list = await p.run(["cube", "list", ...RATE]);
    expect(list.code, describeRun(list)).toBe(0);
    expect(list.stdout).toMatch(/^NAME +ID +STATE +IMAGE/m);
    expect(list.stdout).toMatch(new RegExp(`^web +${web.id} +running +ubuntu-24\\.04 +1 vCPU / 1 GB / 10 GB`, "m"));
    const json = JSON.parse((await p.run(["cube", "list", "--format", "json", ...RATE])).stdout);
    expect(json.map((c: { name: string }) => c.name).sort()).toEqual(["db", "web"]);
    const show = await p.run(["cube", "show", web.id, ...RATE]);
    expect(show.stdout).toMatch(/^name: +web$/m);
    expect(show.stdout).toMatch(/^ssh: +ssh -p \d+ -- ubuntu@\S+$/m);
    const showJson = JSON.parse((await p.run(["cube", "show", "web", "--format", "json", ...RATE])).stdout);
    expect(showJson).toMatchObject({ id: web.id, state: "running", ssh: { user: "ubuntu" } });
  });

  test("power-off --wait, wake --wait and restart --wait reach the state the API reports", async () => {
    const p = await project();
    const web = await runningCube(p, "web");
    const off = await p.run(["cube", "power-off", "web", "--yes", "--wait", "--interval", "50ms", ...RATE]);
    expect(off.code, describeRun(off)).toBe(0);
    expect(off.stdout).toContain(`Cube "web" (${web.id}) is powering off.`);
    expect(off.stdout).toContain(`Cube "web" is stopped.`);
    expect((await p.api.getCube(web.id)).state).toBe("stopped");
    const wake = await p.run(["cube", "wake", "web", "--wait", "--interval", "50ms", "--format", "json", ...RATE]);
    expect(JSON.parse(wake.stdout)).toMatchObject({ id: web.id, state: "running" });
    const restart = await p.run(["cube", "restart", "web", "--wait", "--interval", "50ms", ...RATE]);
    expect(restart.code, describeRun(restart)).toBe(0);
    expect(restart.stdout).toContain(`Cube "web" (${web.id}) is restarting.`);
    expect(restart.stdout).toContain(`Cube "web" is running.`);
    expect(
      p.emu.admin
        .requests()
        .filter((r) => r.method === "POST")
        .map((r) => r.path.split("/").pop()),
    ).toEqual(["cubes", "power-off", "wake", "restart"]);
  });

  test("ssh prints the command with the API's host key pinned in cubeform's own known_hosts", async () => {
    const p = await project();
    const web = await runningCube(p, "web");
    const config = tempDir();
    const ssh = await p.run(["cube", "ssh", "web", ...RATE], { XDG_CONFIG_HOME: config });
    expect(ssh.code, describeRun(ssh)).toBe(0);
    const info = await p.api.getSsh(web.id);
    const knownHosts = join(config, "cubeform", "known_hosts");
    expect(ssh.stdout.trim()).toBe(
      `ssh -o UserKnownHostsFile=${knownHosts} -o StrictHostKeyChecking=yes -p ${info.port} -- ubuntu@${info.host}`,
    );
    expect(readFileSync(knownHosts, "utf8")).toBe(`[${info.host}]:${info.port} ${info.hostKeys[0]!.type} ${info.hostKeys[0]!.key}\n`);
  });

  test("bad input: an unknown cube, a bad --timeout: one line, exit 1; a repeated power-off is success", async () => {
    const p = await project();
    await runningCube(p, "web");
    await p.api.powerOff((await p.api.listCubes())[0]!.id);
    const before = p.mutations();
    const unknown = await p.run(["cube", "restart", "nope", ...RATE]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: no cube named \(or with id\) "nope" in this space$/m);
    const timeout = await p.run(["cube", "wake", "web", "--wait", "--timeout", "soon", ...RATE]);
    expect(timeout.code).toBe(1);
    expect(timeout.stderr).toMatch(/--timeout/);
    expect(p.mutations()).toBe(before);
    await waitFor(async () => ((await p.api.listCubes())[0]!.state === "stopped" ? true : undefined));
    const repeated = await p.run(["cube", "power-off", "web", ...RATE]);
    expect(repeated.code, describeRun(repeated)).toBe(0);
    expect(repeated.stdout).toBe('Cube "web" is already stopped.\n');
    expect(p.mutations()).toBe(before);
  });
});

describe("cubeform snapshot", () => {
  test("take --wait, list, restore and delete a snapshot by name", async () => {
    const p = await project();
    const web = await runningCube(p, "web");
    const take = await p.run(["snapshot", "take", "web", "--name", "before-upgrade", "--wait", "--interval", "50ms", ...RATE]);
    expect(take.code, describeRun(take)).toBe(0);
    expect(take.stdout).toMatch(/Snapshot "before-upgrade" is complete \(2\.5 GiB\)\./);
    const list = await p.run(["snapshot", "list", "web", ...RATE]);
    expect(list.stdout).toMatch(/^before-upgrade +snap_\w+ +complete +2\.5 GiB/m);
    const [snapshot] = await p.api.listSnapshots(web.id);
    const restore = await p.run(["snapshot", "restore", "web", "before-upgrade", "--yes", "--format", "json", ...RATE]);
    expect(restore.code, describeRun(restore)).toBe(0);
    expect(JSON.parse(restore.stdout)).toEqual({ cubeId: web.id, snapshotId: snapshot!.id, result: "restoring", changed: true });
    expect(p.emu.admin.requests().some((r) => r.method === "POST" && r.path.endsWith(`/cubes/${web.id}/restore`) && r.status === 200)).toBe(
      true,
    );
    const del = await p.run(["snapshot", "delete", "web", snapshot!.id, "--yes", ...RATE]);
    expect(del.stdout).toContain(`Deleted snapshot "before-upgrade" (${snapshot!.id}) of cube "web".`);
    expect(await p.api.listSnapshots(web.id)).toEqual([]);
  });

  test("restoring an unknown snapshot is one clear line and sends nothing", async () => {
    const p = await project();
    await runningCube(p, "web");
    const before = p.mutations();
    const run = await p.run(["snapshot", "restore", "web", "nope", ...RATE]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: no snapshot named \(or with id\) "nope" on cube "web"$/m);
    expect(p.mutations()).toBe(before);
  });
});
