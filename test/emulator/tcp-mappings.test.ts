import { describe, expect } from "vitest";
import { test } from "../support/emulator.js";
import { waitFor } from "../support/wait.js";

describe("TCP mappings and SSH", () => {
  test("§3 rule 4: publicIpv4 is null until a port is mapped (the SSH mapping does not count), then the gateway IPv4", async ({ api }) => {
    const cube = await api.runningCube();
    expect(cube.publicIpv4).toBeNull();
    const mapping = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 5432 });
    expect(mapping.status).toBe(201);
    const mapped = (await api.call("GET", `/cubes/${cube.id}`)).body.cube;
    expect(mapped.publicIpv4).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    await api.call("DELETE", `/cubes/${cube.id}/tcp-mappings/${mapping.body.tcpMapping.id}`);
    expect((await api.call("GET", `/cubes/${cube.id}`)).body.cube.publicIpv4).toBeNull();
  });

  test("the SSH mapping exists from create, is listed once with isSsh, and cannot be deleted (400)", async ({ api }) => {
    const cube = await api.createCube();
    const list = await api.call("GET", `/cubes/${cube.id}/tcp-mappings`);
    const ssh = list.body.tcpMappings.filter((m: { isSsh: boolean }) => m.isSsh);
    expect(ssh).toHaveLength(1);
    expect(ssh[0]).toMatchObject({ cubePort: 22, cubeId: cube.id });
    const refused = await api.call("DELETE", `/cubes/${cube.id}/tcp-mappings/${ssh[0].id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/SSH mapping cannot be deleted/);
    expect((await api.call("GET", `/cubes/${cube.id}/tcp-mappings`)).body.tcpMappings).toHaveLength(1);
  });

  test("host ports are allocated from 30000–50000 and unique on their server (these cubes share server 1); host is the cube hostname", async ({
    api,
    emu,
  }) => {
    const other = emu.admin.createSpace();
    const a = await api.runningCube();
    const b = await api.as(other.ownerKey, other.spaceId).runningCube();
    const ports: number[] = [];
    for (const [caller, cube] of [
      [api, a],
      [api.as(other.ownerKey, other.spaceId), b],
    ] as const) {
      for (const cubePort of [80, 443]) {
        const { status, body } = await caller.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort });
        expect(status).toBe(201);
        expect(body.tcpMapping.host).toBe(`${cube.id}.cubes.emulator.local`);
        ports.push(body.tcpMapping.hostPort);
      }
    }
    for (const port of ports) expect(port >= 30000 && port <= 50000).toBe(true);
    expect(new Set(ports).size).toBe(ports.length);
  });

  test("a cube port mapped twice on one cube is 409; defaults: udpEnabled true, label null, open whitelist", async ({ api }) => {
    const cube = await api.createCube();
    const first = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 8080 });
    expect(first.body.tcpMapping).toMatchObject({ udpEnabled: true, label: null, whitelistedIps: [], isSsh: false, status: "active" });
    const second = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 8080 });
    expect(second.status).toBe(409);
    expect((await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 22 })).status).toBe(409);
  });

  test("whitelistIps is a deprecated alias; whitelistedIps wins when both are sent; label ≤ 100", async ({ api }) => {
    const cube = await api.createCube();
    const alias = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 1, whitelistIps: ["10.0.0.0/8"] });
    expect(alias.body.tcpMapping.whitelistedIps).toEqual([{ id: expect.any(String), cidr: "10.0.0.0/8" }]);
    const both = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, {
      cubePort: 2,
      whitelistIps: ["10.0.0.0/8"],
      whitelistedIps: ["192.0.2.1/32"],
      udpEnabled: false,
      label: "db",
    });
    expect(both.body.tcpMapping).toMatchObject({ whitelistedIps: [{ cidr: "192.0.2.1/32" }], udpEnabled: false, label: "db" });
    expect((await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 3, label: "x".repeat(101) })).status).toBe(400);
    expect((await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 70000 })).status).toBe(400);
  });

  test("GET ssh: host null and no host keys while pending; hostname, SSH host port, sshUser and one key when running", async ({
    api,
    emu,
  }) => {
    emu.admin.setClockSpeed(1);
    const cube = await api.createCube({ image: "debian-13-docker" });
    const early = await api.call("GET", `/cubes/${cube.id}/ssh`);
    expect(early.body).toMatchObject({ host: null, user: "debian", hostKeys: [] });
    emu.admin.setClockSpeed(1000);
    await api.waitForState(cube.id, "running");
    const ssh = (await api.call("GET", `/cubes/${cube.id}/ssh`)).body;
    const sshMapping = (await api.call("GET", `/cubes/${cube.id}/tcp-mappings`)).body.tcpMappings[0];
    expect(ssh).toMatchObject({ host: `${cube.id}.cubes.emulator.local`, port: sshMapping.hostPort, user: "debian" });
    expect(ssh.hostKeys).toEqual([{ type: "ssh-ed25519", key: expect.any(String) }]);
  });

  test("PUT ssh-port changes the in-cube port, keeps host port and whitelist; 400 invalid; 409 when another mapping uses it", async ({
    api,
  }) => {
    const cube = await api.runningCube();
    const before = (await api.call("GET", `/cubes/${cube.id}/tcp-mappings`)).body.tcpMappings[0];
    await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 8080 });
    expect((await api.call("PUT", `/cubes/${cube.id}/ssh-port`, { cubePort: 8080 })).status).toBe(409);
    expect((await api.call("PUT", `/cubes/${cube.id}/ssh-port`, { cubePort: 0 })).status).toBe(400);
    expect((await api.call("PUT", `/cubes/${cube.id}/ssh-port`, {})).status).toBe(400);
    const changed = await api.call("PUT", `/cubes/${cube.id}/ssh-port`, { cubePort: 2222 });
    expect(changed).toMatchObject({ status: 200, body: { success: true, cubePort: 2222 } });
    const after = await waitFor(async () => {
      const ssh = (await api.call("GET", `/cubes/${cube.id}/tcp-mappings`)).body.tcpMappings.find((m: { isSsh: boolean }) => m.isSsh);
      return ssh.status === "active" ? ssh : undefined;
    });
    expect(after).toMatchObject({ id: before.id, cubePort: 2222, hostPort: before.hostPort, whitelistedIps: before.whitelistedIps });
  });
});
