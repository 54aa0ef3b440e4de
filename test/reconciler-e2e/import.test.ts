import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { newIdempotencyKey } from "../../client/index.js";
import { APPLY, FLEET, RATE, SSH_KEY, describeRun, project, waitFor, type Project } from "./support.js";

/** The fleet, plus a cube made by hand: stopped, SSH on 2222, a domain with settings, an open UDP port. */
async function liveSpace(): Promise<Project> {
  const p = await project({ "cubeform.yaml": FLEET });
  const applied = await p.run(APPLY);
  expect(applied.code, describeRun(applied)).toBe(0);
  const body = { name: "legacy", image: "debian-13", resources: { vcpu: 2, ramGb: 2, diskGb: 15 }, sshPublicKey: SSH_KEY };
  const cube = await p.api.createCube(body, { idempotencyKey: newIdempotencyKey() });
  await waitFor(async () => (await p.api.getCube(cube.id)).state === "running", { timeoutMs: 10_000, message: "legacy to run" });
  await p.api.setSshPort(cube.id, 2222);
  await p.api.attachDomain(
    cube.id,
    {
      hostname: "legacy.example.org",
      port: 3000,
      ipAllowList: ["198.51.100.0/24"],
      basicAuthUser: "ops",
      basicAuthPassword: "s3cret-pass",
    },
    { idempotencyKey: newIdempotencyKey() },
  );
  await p.api.createTcpMapping(cube.id, { cubePort: 27015, udp: true, allow: [] }, { idempotencyKey: newIdempotencyKey() });
  await p.api.powerOff(cube.id);
  await waitFor(async () => (await p.api.getCube(cube.id)).state === "stopped", { timeoutMs: 10_000, message: "legacy to stop" });
  return p;
}

test("import writes a file that a plan against the same space finds unchanged", async () => {
  const p = await liveSpace();
  const imported = await p.run(["import", "-O", "imported.yaml", ...RATE]);
  expect(imported.code, describeRun(imported)).toBe(0);
  expect(imported.stderr).toContain(`Imported 3 cubes (3 domains, 3 ports) from space ${p.emu.spaceId} into imported.yaml.`);
  const yaml = readFileSync(join(p.cwd, "imported.yaml"), "utf8");
  expect(yaml).toContain("sshPublicKey: ${env:CUBE_SSH_PUBLIC_KEY}");
  expect(yaml).toMatch(/# The API never returns a cube's SSH key/);
  expect(yaml).toMatch(
    /- name: legacy\n\s+image: debian-13\n\s+region: [\w-]+\n\s+resources: \{ ?vcpu: 2, ramGb: 2, diskGb: 15 ?\}\n\s+terminationProtection: false\n\s+power: stopped\n\s+sshPort: 2222/,
  );
  expect(yaml).toContain("basicAuthUser: ops");
  expect(yaml).not.toContain("s3cret-pass");

  const plan = await p.run(["plan", "-f", "imported.yaml", ...RATE], { CUBE_SSH_PUBLIC_KEY: SSH_KEY });
  expect(plan.code, describeRun(plan)).toBe(0);
  expect(plan.stdout).toContain("No changes");
});

test("import refuses to overwrite a file without --force, and prints to stdout without -O", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const refused = await p.run(["import", "-O", "cubeform.yaml"]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("Error: cubeform.yaml already exists; pass --force to overwrite it");
  expect(readFileSync(join(p.cwd, "cubeform.yaml"), "utf8")).toBe(FLEET);

  const forced = await p.run(["import", "-O", "cubeform.yaml", "--force"]);
  expect(forced.code, describeRun(forced)).toBe(0);
  expect(readFileSync(join(p.cwd, "cubeform.yaml"), "utf8")).toMatch(/^apiVersion: cubeform\/v1$/m);

  const stdout = await p.run(["import"]);
  expect(stdout.code, describeRun(stdout)).toBe(0);
  expect(stdout.stdout).toMatch(/^apiVersion: cubeform\/v1$/m);
  expect(stdout.stderr).toContain("Imported 0 cubes");
});

test("import names the webhook endpoints it leaves out, in the YAML header and the Pulumi program's (issue 22 item 5)", async () => {
  const p = await project();
  await p.api.createWebhook({ url: "http://127.0.0.1:9/hooks/cubes", events: ["cube.created", "cube.deleted"] });
  const yaml = await p.run(["import", ...RATE]);
  expect(yaml.code, describeRun(yaml)).toBe(0);
  expect(yaml.stdout).toMatch(/^# Not written: the space's webhook endpoint /m);
  expect(yaml.stdout).toMatch(/^# {3}http:\/\/127\.0\.0\.1:9\/hooks\/cubes \(cube\.created, cube\.deleted\)$/m);
  const pulumi = await p.run(["import", "--format", "pulumi", ...RATE]);
  expect(pulumi.code, describeRun(pulumi)).toBe(0);
  expect(pulumi.stdout).toMatch(/^ \* {3}http:\/\/127\.0\.0\.1:9\/hooks\/cubes \(cube\.created, cube\.deleted\)$/m);
});
