/**
 * How to reach what was built: apply prints the ssh command, each TCP port's host:port and the
 * DNS records of the cubes it changed; `cubeform show` prints the same from the live space.
 */
import { expect, test } from "vitest";
import { APPLY, FLEET, SSH_KEY, describeRun, project, type Project } from "./support.js";

interface ReachJson {
  formatVersion: number;
  spaceId: string;
  cubes: {
    name: string;
    id: string;
    state: string;
    ssh: { command: string; host: string; port: number; user: string } | null;
    tcp: { cubePort: number; label: string | null; address: string | null; allow: string[] }[];
    domains: { hostname: string; complete: boolean | null; records: { type: string; host: string; value: string; state?: string }[] }[];
  }[];
}

const RATE = ["--rate-limit", "1000/60"];

/** What the API says about one cube: its ssh command and its published ports. */
async function liveReach(p: Project, name: string): Promise<{ ssh: string; ports: Record<number, string> }> {
  const cube = (await p.api.listCubes()).find((c) => c.name === name);
  if (cube === undefined) throw new Error(`no cube ${name}`);
  const ssh = await p.api.getSsh(cube.id);
  const ports: Record<number, string> = {};
  for (const m of await p.api.listTcpMappings(cube.id)) if (!m.isSsh) ports[m.cubePort] = `${m.host}:${m.hostPort}`;
  return { ssh: `ssh -p ${ssh.port} -- ${ssh.user}@${ssh.host}`, ports };
}

test("after apply: the ssh command of each cube, each TCP port's host:port, each domain's DNS records", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const run = await p.run(APPLY);
  expect(run.code, describeRun(run)).toBe(0);
  const reach = run.stdout.slice(run.stdout.indexOf("How to reach"));
  expect(reach, describeRun(run)).toMatch(/^How to reach the cubes this apply changed/);
  const web = await liveReach(p, "web");
  const db = await liveReach(p, "db");
  expect(reach).toContain(`  ssh:     ${web.ssh}\n`);
  expect(reach).toContain(`  ssh:     ${db.ssh}\n`);
  expect(reach).toContain(`  tcp:     5432 → ${web.ports[5432]}  (postgres, tcp, from 203.0.113.0/24)`);
  expect(reach).toContain(`  tcp:     6379 → ${db.ports[6379]}  (redis, tcp+udp, open to the internet)`);
  expect(reach).toMatch(
    / {2}domain: {2}\*\.e2e\.example\.com → port 8080; publish these DNS records \(0 of 3 found\):\n {13}TXT {3}_krova-verify\.e2e\.example\.com → \S+/,
  );
  expect(reach).toMatch(/ {13}CNAME www\.e2e\.example\.com → dns\.krova\.cloud {2}\[may be proxied\] {2}not published yet/);

  const json = await p.run(["apply", "--auto-approve", "--format", "json", ...RATE]);
  expect(json.code, describeRun(json)).toBe(0);
  // Nothing changed: nothing to say how to reach.
  expect(JSON.parse(json.stdout).reach).toEqual([]);
});

test("show: every cube of the space (or the file's, or the targets), text and JSON, from the live space", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  expect((await p.run(APPLY)).code).toBe(0);
  await p.api.createCube(
    { name: "legacy", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "create-legacy" },
  );
  const before = p.mutations();

  const all = await p.run(["show", ...RATE]);
  expect(all.code, describeRun(all)).toBe(0);
  expect([...all.stdout.matchAll(/^(\S+) \(cube_\w+, (\w+)/gm)].map((m) => m[1])).toEqual(["db", "legacy", "web"]);
  expect(all.stdout).toContain(`  ssh:     ${(await liveReach(p, "web")).ssh}\n`);

  const declared = await p.run(["show", "-f", "cubeform.yaml", "--format", "json", ...RATE]);
  expect(declared.code, describeRun(declared)).toBe(0);
  const json = JSON.parse(declared.stdout) as ReachJson;
  expect(json.formatVersion).toBe(1);
  expect(json.cubes.map((c) => c.name)).toEqual(["db", "web"]);
  const web = json.cubes.find((c) => c.name === "web");
  expect(web?.ssh?.command).toBe((await liveReach(p, "web")).ssh);
  expect(web?.tcp).toEqual([
    expect.objectContaining({
      cubePort: 5432,
      label: "postgres",
      address: (await liveReach(p, "web")).ports[5432],
      allow: ["203.0.113.0/24"],
    }),
  ]);
  expect(web?.domains.map((d) => [d.hostname, d.complete, d.records.length])).toEqual([
    ["*.e2e.example.com", false, 3],
    ["www.e2e.example.com", false, 1],
  ]);

  const one = await p.run(["show", "--target", "legacy", "--format", "json", ...RATE]);
  expect((JSON.parse(one.stdout) as ReachJson).cubes.map((c) => c.name)).toEqual(["legacy"]);

  const typo = await p.run(["show", "--target", "wbe", ...RATE]);
  expect(typo.code).toBe(1);
  expect(typo.stderr).toMatch(/--target wbe: the space has no cube named "wbe".*web/);
  expect(p.mutations()).toBe(before);
});
