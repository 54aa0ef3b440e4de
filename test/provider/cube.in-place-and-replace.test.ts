/**
 * Cube changes the API can make in place (power, SSH port) are updates; a replacement runs as
 * Pulumi runs it with deleteBeforeReplace (Delete, then Create); a cube that does not boot in
 * time fails create with its name and state, and is still recorded (ErrorResourceInitFailed).
 */
import { afterAll, describe, expect, it } from "vitest";
import { DIFF_SOME, initFailureOf, type Plugin } from "./harness.js";
import { cubeInputs, stackForFile, type Resource, type Stack } from "./support/stack.js";

let stack: Stack;
let slowPlugin: Plugin | undefined;
stackForFile((started) => (stack = started));
afterAll(async () => {
  await slowPlugin?.close();
});

describe("Cube in place and replaced", () => {
  let app: Resource;

  it("powers off and moves the SSH port in place", async () => {
    app = await stack.create("Cube", "app", cubeInputs("app"));
    const { diff, resource } = await stack.update(app, cubeInputs("app", { power: "stopped", sshPort: 2200 }));
    expect(diff).toEqual({ changes: DIFF_SOME, replaces: [], deleteBeforeReplace: false });
    expect(resource.outs).toMatchObject({ cubeId: app.id, power: "stopped", sshPort: 2200 });
    expect(["stopping", "stopped"]).toContain(resource.outs.state);
    app = resource;
  });

  it("replaces a renamed cube, creating the new one first (the names differ)", async () => {
    expect(await stack.diff(app, cubeInputs("app-2", { power: "stopped", sshPort: 2200 }))).toEqual({
      changes: DIFF_SOME,
      replaces: ["name"],
      deleteBeforeReplace: false,
    });
  });

  it("replaces on a new SSH key or new user data, which the API never shows (kept as an echo and a digest)", async () => {
    const same = { power: "stopped", sshPort: 2200 };
    expect(
      (await stack.diff(app, cubeInputs("app", { ...same, sshPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOther other@host" })))
        .replaces,
    ).toEqual(["sshPublicKey"]);
    expect((await stack.diff(app, cubeInputs("app", { ...same, userData: "#cloud-config\n" }))).replaces).toEqual(["userData"]);
    expect(app.outs.userDataDigest).toBeNull();
  });

  it("replaces on a new image: Delete then Create gives a new running cube", async () => {
    const news = cubeInputs("app", { image: "debian-13" });
    const diff = await stack.diff(app, news);
    expect(diff).toEqual({ changes: DIFF_SOME, replaces: ["image"], deleteBeforeReplace: true });
    await stack.destroy(app);
    const replaced = await stack.create("Cube", "app", news);
    expect(replaced.id).not.toBe(app.id);
    expect(replaced.outs).toMatchObject({ image: "debian-13", sshUser: "debian", state: "running", name: "app" });
  });

  it("fails a create that does not reach running in time, naming the cube and its state", async () => {
    slowPlugin = await stack.anotherPlugin({ "cubeform:waitTimeout": "0.2", "cubeform:pollInterval": "0.05" });
    stack.emulator.admin.setClockSpeed(1);
    const urn = slowPlugin.urnOf("slow", "pulumi-nodejs:dynamic/cubeform:Cube");
    const error = (await slowPlugin.create(urn, stack.withProvider("Cube", cubeInputs("slow"))).catch((e: unknown) => e)) as Error;
    stack.emulator.admin.setClockSpeed(100);
    expect(error.message).toMatch(/Cube "slow" \(id cube_\w+\) was created but is not ready: its state is "(pending|booting)"/);
    // ErrorResourceInitFailed: Pulumi records the cube (with a provider to delete it later) instead of losing it.
    const failure = initFailureOf(error);
    expect(failure?.id).toMatch(/^cube_/);
    expect(failure?.properties).toMatchObject({ cubeId: failure?.id, name: "slow", __provider: stack.providers.Cube });
  });
});
