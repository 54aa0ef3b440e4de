import { describe, expect } from "vitest";
import { test } from "../support/emulator.js";

describe("authentication and scoping", () => {
  test("§5 rule 5: a missing X-API-KEY is a 401 with an error string", async ({ api }) => {
    const result = await api.as(undefined).call("GET", "/cubes");
    expect(result.status).toBe(401);
    expect(result.body.error).toMatch(/X-API-KEY/);
  });

  test("§5 rule 5: an invalid key is a 401", async ({ api }) => {
    const result = await api.as("kro_not-a-key").call("GET", "/space");
    expect(result.status).toBe(401);
    expect(typeof result.body.error).toBe("string");
  });

  test("§5 rule 4: there is no bearer token: Authorization: Bearer <valid key> is a 401", async ({ api, emu }) => {
    const result = await api.as(undefined).call("GET", "/cubes", undefined, { authorization: `Bearer ${emu.apiKey}` });
    expect(result.status).toBe(401);
  });

  test("§5 rule 6 / §4 rule 3: regions, images and pricing need no key", async ({ api }) => {
    const anonymous = api.as(undefined);
    const regions = await anonymous.call("GET", "/regions");
    const images = await anonymous.call("GET", "/images");
    const pricing = await anonymous.call("GET", "/pricing");
    expect(regions.status).toBe(200);
    expect(regions.body.regions.length).toBeGreaterThan(0);
    expect(images.body.images.map((i: { id: string; defaultUser: string }) => [i.id, i.defaultUser])).toEqual([
      ["ubuntu-24.04", "ubuntu"],
      ["ubuntu-24.04-docker", "ubuntu"],
      ["debian-13", "debian"],
      ["debian-13-docker", "debian"],
    ]);
    expect(pricing.status).toBe(200);
    expect(pricing.body.rates.vcpuPerHour).toBeGreaterThan(0);
  });

  test("§5 rule 1: GET /space resolves the key's space", async ({ api, emu }) => {
    const result = await api.call("GET", "/space");
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      id: emu.spaceId,
      tier: expect.any(String),
      createdAt: expect.any(String),
      name: expect.any(String),
    });
  });

  test("§5 rule 5: a read-only key may read but every mutation is a 403", async ({ api, emu }) => {
    const { readOnlyKey } = emu.admin.createSpace();
    const other = emu.admin.createSpace();
    const readOnly = api.as(other.readOnlyKey, other.spaceId);
    const owner = api.as(other.ownerKey, other.spaceId);
    const cube = await owner.createCube();
    expect((await readOnly.call("GET", `/cubes/${cube.id}`)).status).toBe(200);
    expect((await readOnly.call("POST", "/cubes", { name: "x" })).status).toBe(403);
    expect((await readOnly.call("PATCH", `/cubes/${cube.id}`, { terminationProtection: true })).status).toBe(403);
    expect((await readOnly.call("DELETE", `/cubes/${cube.id}`)).status).toBe(403);
    expect((await owner.call("GET", `/cubes/${cube.id}`)).body.cube.terminationProtection).toBe(false);
    expect(readOnlyKey).not.toBe(other.readOnlyKey);
  });

  test("§1: keys are scoped to one Space: another space's cube is a 404 under the key's own space", async ({ api, emu }) => {
    const other = emu.admin.createSpace();
    const foreign = await api.as(other.ownerKey, other.spaceId).createCube();
    const asMine = await api.call("GET", `/cubes/${foreign.id}`);
    expect(asMine.status).toBe(404);
    expect((await api.call("DELETE", `/cubes/${foreign.id}`)).status).toBe(404);
    expect((await api.call("PATCH", `/cubes/${foreign.id}`, { terminationProtection: true })).status).toBe(404);
    expect((await api.call("GET", `/cubes/${foreign.id}/tcp-mappings`)).status).toBe(404);
    expect((await api.call("GET", "/cubes")).body.cubes).toEqual([]);
  });

  test("§5 rule 3: a path spaceId other than the key's space is a 403, existing or not", async ({ api, emu }) => {
    const other = emu.admin.createSpace();
    expect((await api.as(emu.apiKey, other.spaceId).call("GET", "/cubes")).status).toBe(403);
    expect((await api.as(emu.apiKey, "spc_does_not_exist").call("GET", "/cubes")).status).toBe(403);
  });
});
