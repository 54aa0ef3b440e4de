/**
 * Adopting live resources as the real engine allows it.
 *
 * Pulumi's `import` option (and `pulumi import`) reads the resource with its id ONLY: the engine's
 * ImportStep sends no state and no inputs, so the plugin has no `__provider` and fails. The
 * harness sends exactly that, and this file keeps the proof. The working path is `adoptId`: the
 * first create reads the live resource and takes it over when it matches the inputs, with no
 * mutation; a mismatch fails naming every differing field and changes nothing.
 */
import { describe, expect, it } from "vitest";
import { newIdempotencyKey } from "../../client/index.js";
import { waitFor } from "../support/wait.js";
import { DIFF_NONE, DIFF_SOME } from "./harness.js";
import { cubeInputs, directClient, SSH_KEY, stackForFile, type Kind, type Resource, type Stack } from "./support/stack.js";

let stack: Stack;
let cubeId: string;
let domainId: string;
let mappingId: string;
stackForFile(async (started) => {
  stack = started;
  // A fleet made outside Pulumi (the dashboard, the CLI): created straight through the API.
  const api = directClient(stack, { limit: 100, windowMs: 1000 });
  const cube = await api.createCube(
    { name: "legacy", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: newIdempotencyKey() },
  );
  cubeId = cube.id;
  await waitFor(async () => (await api.getCube(cubeId)).state === "running", { timeoutMs: 10_000, message: "legacy to run" });
  domainId = (
    await api.attachDomain(
      cubeId,
      { hostname: "legacy.example.com", port: 8080, responseCompression: true },
      { idempotencyKey: newIdempotencyKey() },
    )
  ).domain.id;
  mappingId = (
    await api.createTcpMapping(cubeId, { cubePort: 5432, udp: false, allow: ["10.0.0.0/8"] }, { idempotencyKey: newIdempotencyKey() })
  ).id;
  await api.close();
});

const mutations = () => stack.emulator.admin.requests().filter((r) => r.mutating);

const declared = () => ({
  Cube: cubeInputs("legacy", { adoptId: cubeId }),
  Domain: { cubeId, hostname: "legacy.example.com", port: 8080, responseCompression: true, adoptId: `${cubeId}/${domainId}` },
  TcpMapping: { cubeId, cubePort: 5432, udp: false, allow: ["10.0.0.0/8"], adoptId: mappingId },
});

describe("the `import` option under the real engine", () => {
  it.each<[Kind, () => string]>([
    ["Cube", () => cubeId],
    ["Domain", () => `${cubeId}/${domainId}`],
    ["TcpMapping", () => `${cubeId}/${mappingId}`],
  ])("%s: the engine's import Read (id only) fails in the plugin: there is no __provider to load", async (kind, id) => {
    const failure = stack.plugin.importRead(stack.urn(kind, "imported"), id());
    await expect(failure).rejects.toThrow(/Cannot read properties of undefined \(reading 'toJavaScript'\)/);
  });
});

describe("adoptId", () => {
  it("refuses a resource that differs from the inputs, naming every field, and changes nothing", async () => {
    stack.emulator.admin.clearRequests();
    const cube = stack.create(
      "Cube",
      "legacy",
      cubeInputs("legacy", {
        adoptId: cubeId,
        image: "debian-13",
        resources: { vcpu: 2, ramGb: 1, diskGb: 10 },
        terminationProtection: true,
      }),
    );
    await expect(cube).rejects.toThrow(/Cannot adopt cube "legacy".*nothing was changed/s);
    const message = await cube.catch((error: Error) => error.message);
    expect(message).toMatch(/image: live "ubuntu-24.04", declared "debian-13"/);
    expect(message).toMatch(/resources\.vcpu: live 1, declared 2/);
    expect(message).toMatch(/terminationProtection: live false, declared true/);

    const port = stack.create("TcpMapping", "pg", { ...declared().TcpMapping, allow: ["10.0.0.0/8", "192.0.2.0/24"] });
    await expect(port).rejects.toThrow(
      /Cannot adopt TCP mapping of port 5432[^]*allow: live \["10.0.0.0\/8"\], declared \["10.0.0.0\/8","192.0.2.0\/24"\]/,
    );
    const domain = stack.create("Domain", "app", { ...declared().Domain, port: 9090 });
    await expect(domain).rejects.toThrow(/Cannot adopt domain legacy\.example\.com[^]*port: live 8080, declared 9090/);
    const missing = stack.create("Cube", "ghost", cubeInputs("ghost", { adoptId: "cube_does_not_exist" }));
    await expect(missing).rejects.toThrow(/no live resource has id cube_does_not_exist/);
    expect(mutations()).toEqual([]);
  });

  let adopted: Record<Exclude<Kind, "Webhook" | "CubeGroup">, Resource>;
  it("takes over a matching cube, domain and mapping without a single mutation", async () => {
    stack.emulator.admin.clearRequests();
    const inputs = declared();
    const cube = await stack.create("Cube", "legacy", inputs.Cube);
    const domain = await stack.create("Domain", "app", inputs.Domain);
    const port = await stack.create("TcpMapping", "pg", inputs.TcpMapping);
    expect(cube.id).toBe(cubeId);
    expect(domain.id).toBe(`${cubeId}/${domainId}`);
    // A bare mapping id is looked up under the declared cube.
    expect(port.id).toBe(`${cubeId}/${mappingId}`);
    expect(cube.outs).toMatchObject({ cubeId, name: "legacy", image: "ubuntu-24.04", sshPublicKey: SSH_KEY });
    expect(domain.outs).toMatchObject({ hostname: "legacy.example.com", port: 8080, responseCompression: true });
    expect(port.outs).toMatchObject({ cubePort: 5432, udp: false, allow: ["10.0.0.0/8"] });
    expect(mutations()).toEqual([]);
    adopted = { Cube: cube, Domain: domain, TcpMapping: port };
  });

  it("the next `pulumi up` (same program, adoptId still in it) shows no changes", async () => {
    const inputs = declared();
    for (const kind of ["Cube", "Domain", "TcpMapping"] as const) {
      expect((await stack.diff(adopted[kind], inputs[kind])).changes, kind).toBe(DIFF_NONE);
    }
  });

  it("once in the stack, adoptId is spent: a replacement creates a new cube instead of re-adopting the deleted one", async () => {
    const checked = await stack.plugin.check(adopted.Cube.urn, adopted.Cube.inputs, stack.withProvider("Cube", declared().Cube));
    expect(checked.inputs).not.toHaveProperty("adoptId");
    const diff = await stack.diff(adopted.Cube, cubeInputs("legacy", { adoptId: cubeId, resources: { vcpu: 2, ramGb: 1, diskGb: 10 } }));
    expect(diff).toMatchObject({ changes: DIFF_SOME, replaces: ["resources"], deleteBeforeReplace: true });
    // The engine's replacement: Delete the old cube, then Create with the checked inputs.
    await stack.destroy(adopted.Cube);
    const created = await stack.plugin.create(adopted.Cube.urn, checked.inputs);
    expect(created.id).not.toBe(cubeId);
    expect(created.outs).toMatchObject({ name: "legacy" });
  });
});
