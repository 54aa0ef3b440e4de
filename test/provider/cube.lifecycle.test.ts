/**
 * A Cube through the real dynamic-provider plugin, as `pulumi up` drives it: create, a no-change
 * diff, protection flipped in place, an image change that replaces, drift found by refresh,
 * a protected delete refused, then deleted once unprotected.
 */
import { describe, expect, it } from "vitest";
import { DIFF_NONE, DIFF_SOME, UNKNOWN } from "./harness.js";
import { cubeInputs, stackForFile, type Resource, type Stack } from "./support/stack.js";

let stack: Stack;
stackForFile((started) => (stack = started));

async function liveCube(id: string) {
  const res = await fetch(`${stack.emulator.url}/spaces/${stack.emulator.spaceId}/cubes/${id}`, {
    headers: { "X-API-KEY": stack.emulator.apiKey },
  });
  return { status: res.status, body: (await res.json()) as { cube?: { terminationProtection: boolean; state: string } } };
}

describe("Cube resource", () => {
  let web: Resource;

  it("creates a running cube with SSH connection outputs", async () => {
    web = await stack.create("Cube", "web", cubeInputs("web", { sshPort: 2222 }));
    expect(web.id).not.toBe("");
    expect(web.outs).toMatchObject({
      cubeId: web.id,
      name: "web",
      state: "running",
      image: "ubuntu-24.04",
      sshUser: "ubuntu",
      sshPort: 2222,
      terminationProtection: false,
    });
    expect(web.outs.sshHost).toEqual(expect.any(String));
    expect(web.outs.sshHostPort).toEqual(expect.any(Number));
  });

  it("reports no change when the inputs are unchanged", async () => {
    const diff = await stack.diff(web, cubeInputs("web", { sshPort: 2222 }));
    expect(diff).toEqual({ changes: DIFF_NONE, replaces: [], deleteBeforeReplace: false });
  });

  it("turns protection on in place", async () => {
    const { diff, resource } = await stack.update(web, cubeInputs("web", { sshPort: 2222, terminationProtection: true }));
    expect(diff).toEqual({ changes: DIFF_SOME, replaces: [], deleteBeforeReplace: false });
    expect(resource.outs.terminationProtection).toBe(true);
    expect((await liveCube(web.id)).body.cube?.terminationProtection).toBe(true);
    web = resource;
  });

  it("refuses to replace a protected cube, naming the flag", async () => {
    await expect(stack.diff(web, cubeInputs("web", { sshPort: 2222, terminationProtection: true, image: "debian-13" }))).rejects.toThrow(
      /Cube "web" \(id .+\) has terminationProtection on; .* \(image cannot change in place\)/,
    );
  });

  it("does not refuse at preview for a value that is still unknown", async () => {
    const diff = await stack.plugin.diff(
      web.urn,
      web.id,
      web.outs,
      web.inputs,
      stack.withProvider("Cube", cubeInputs("web", { sshPort: 2222, terminationProtection: true, image: UNKNOWN })),
    );
    expect(diff.replaces).toEqual(["image"]);
  });

  it("refuses to delete a protected cube and leaves it alone", async () => {
    await expect(stack.destroy(web)).rejects.toThrow(/Cube "web" \(id .+\) has terminationProtection on; set terminationProtection: false/);
    expect((await liveCube(web.id)).body.cube?.state).toBe("running");
  });

  it("finds an out-of-band change on refresh", async () => {
    const res = await fetch(`${stack.emulator.url}/spaces/${stack.emulator.spaceId}/cubes/${web.id}`, {
      method: "PATCH",
      headers: { "X-API-KEY": stack.emulator.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ terminationProtection: false }),
    });
    expect(res.status).toBe(200);
    const refreshed = await stack.refresh(web);
    expect(refreshed?.outs.terminationProtection).toBe(false);
    expect(refreshed?.outs.terminationProtectionChangedBy).toEqual(expect.any(String));
    // The program still says true: the next up puts it back.
    expect((await stack.diff(refreshed!, cubeInputs("web", { sshPort: 2222, terminationProtection: true }))).changes).toBe(DIFF_SOME);
    web = refreshed!;
  });

  it("replaces the cube when the image changes, deleting first", async () => {
    const diff = await stack.diff(web, cubeInputs("web", { sshPort: 2222, image: "debian-13" }));
    expect(diff.changes).toBe(DIFF_SOME);
    expect(diff.replaces).toContain("image");
    expect(diff.deleteBeforeReplace).toBe(true);
  });

  it("deletes the cube once unprotected; a second delete finds it gone and succeeds", async () => {
    await stack.destroy(web);
    expect((await liveCube(web.id)).status).toBe(404);
    await stack.destroy(web);
    expect(await stack.refresh(web)).toBeUndefined();
  });
});
