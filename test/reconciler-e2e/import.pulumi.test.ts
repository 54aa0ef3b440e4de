/**
 * `cubeform import --format pulumi` writes a program that ADOPTS the live space: its first
 * `pulumi up` (through the real plugin, as the engine drives it) takes every resource over with
 * zero API mutations, and the next `pulumi up` reports no changes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { newIdempotencyKey } from "../../client/index.js";
import { upStack } from "../provider/support/up.js";
import { APPLY, FLEET, RATE, SSH_KEY, describeRun, project, waitFor } from "./support.js";

test("import --format pulumi writes a program whose pulumi up adopts everything unchanged, then shows no changes", {
  timeout: 90_000,
}, async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const applied = await p.run(APPLY);
  expect(applied.code, describeRun(applied)).toBe(0);
  const legacy = await p.api.createCube(
    { name: "legacy", image: "debian-13", resources: { vcpu: 2, ramGb: 2, diskGb: 15 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: newIdempotencyKey() },
  );
  await waitFor(async () => (await p.api.getCube(legacy.id)).state === "running", { timeoutMs: 10_000, message: "legacy to run" });
  await p.api.setSshPort(legacy.id, 2222);
  await p.api.attachDomain(
    legacy.id,
    { hostname: "legacy.example.org", port: 3000, basicAuthUser: "ops", basicAuthPassword: "s3cret-pass" },
    { idempotencyKey: newIdempotencyKey() },
  );
  await p.api.powerOff(legacy.id);
  await waitFor(async () => (await p.api.getCube(legacy.id)).state === "stopped", { timeoutMs: 10_000, message: "legacy to stop" });

  const imported = await p.run(["import", "--format", "pulumi", "-O", "index.ts", ...RATE]);
  expect(imported.code, describeRun(imported)).toBe(0);
  expect(imported.stderr).toContain("Imported 3 cubes (3 domains, 2 ports)");
  expect(imported.stderr).toContain("pulumi up");
  const program = readFileSync(join(p.cwd, "index.ts"), "utf8");
  expect(program).toContain('import { Cube, Domain, TcpMapping } from "cubeform/provider";');
  expect(program).toContain(`adoptId: "${legacy.id}"`);
  expect(program).toMatch(
    /new Domain\("legacy-legacy\.example\.org", \{\s+adoptId: "[^"]+",\s+cubeId: legacy\.cubeId,\s+hostname: "legacy\.example\.org",\s+port: 3000/,
  );
  expect(program).toMatch(/udp: false,\s+allow: \["203\.0\.113\.0\/24"\]/);
  expect(program).not.toContain("s3cret-pass");
  expect(program).not.toMatch(/\{ import:/);

  const stack = upStack({
    "cubeform:apiKey": p.emu.apiKey,
    "cubeform:apiUrl": p.emu.url,
    "cubeform:rateLimit": "1000/60",
    "cubeform:pollInterval": "0.02",
  });
  onTestFinished(() => stack.dispose());
  writeFileSync(join(stack.dir, "index.ts"), program);
  p.emu.admin.clearRequests();

  const [first, second] = await stack.up("index.ts", { programConfig: { sshPublicKey: SSH_KEY }, runs: 2 });
  expect(first!.error).toBeNull();
  expect(first!.steps.map((s) => s.op).sort()).toEqual(Array(8).fill("create"));
  expect(second!.error).toBeNull();
  expect(second!.steps.map((s) => `${s.urn.split("::").pop()} ${s.op}`).sort()).toEqual(
    first!.steps.map((s) => `${s.urn.split("::").pop()} same`).sort(),
  );
  expect(p.mutations(), "mutations while adopting and after").toBe(0);
});
