import { describe, expect } from "vitest";
import { cubeBody, test } from "../support/emulator.js";

describe("cube create, get and list", () => {
  test("§4 POST cubes: 201 {cube} pending, publicIpv4 null, protection fields present and null", async ({ api }) => {
    const result = await api.call("POST", "/cubes", cubeBody({ image: "debian-13" }));
    expect(result.status).toBe(201);
    expect(result.body.cube).toMatchObject({
      state: "pending",
      publicIpv4: null,
      image: "debian-13",
      sshUser: "debian",
      region: "eu-nuremberg",
      terminationProtection: false,
      terminationProtectionChangedAt: null,
      terminationProtectionChangedBy: null,
      resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
    });
    expect(result.body.cube.costPerHour).toBeGreaterThan(0);
    expect(Date.parse(result.body.cube.createdAt)).not.toBeNaN();
  });

  test("§4 POST cubes accepts terminationProtection: true and stamps who set it", async ({ api }) => {
    const { body } = await api.call("POST", "/cubes", cubeBody({ terminationProtection: true }));
    expect(body.cube.terminationProtection).toBe(true);
    expect(body.cube.terminationProtectionChangedBy).toMatch(/^user:/);
    expect(Date.parse(body.cube.terminationProtectionChangedAt)).not.toBeNaN();
  });

  test("§7 400: an invalid body names the field", async ({ api }) => {
    const missing = await api.call("POST", "/cubes", cubeBody({ name: undefined }));
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/name/);
    const disk = await api.call("POST", "/cubes", cubeBody({ resources: { vcpu: 1, ramGb: 1, diskGb: 12 } }));
    expect(disk.status).toBe(400);
    expect(disk.body.error).toMatch(/diskGb/);
    const unknownField = await api.call("POST", "/cubes", cubeBody({ colour: "red" }));
    expect(unknownField.body.error).toMatch(/colour/);
    const notJson = await fetch(`${api.url}/spaces/${api.spaceId}/cubes`, {
      method: "POST",
      headers: { "x-api-key": api.key ?? "" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
  });

  test("§7 400: an image or region that the lookups do not list is refused", async ({ api }) => {
    const image = await api.call("POST", "/cubes", cubeBody({ image: "windows-11" }));
    expect(image.status).toBe(400);
    expect(image.body.error).toMatch(/image/);
    const region = await api.call("POST", "/cubes", cubeBody({ region: "mars-1" }));
    expect(region.status).toBe(400);
    expect(region.body.error).toMatch(/region/);
    const ok = await api.call("POST", "/cubes", cubeBody({ region: "us-ashburn" }));
    expect(ok.body.cube.region).toBe("us-ashburn");
  });

  test("new cubes pass pending → booting → running; single GET includes serverDomain", async ({ api }) => {
    const cube = await api.createCube();
    const running = await api.waitForState(cube.id, "running");
    expect(running.serverDomain).toEqual(expect.any(String));
    expect(running).toHaveProperty("terminationProtectionChangedAt", null);
    const list = await api.call("GET", "/cubes");
    expect(list.body.cubes[0]).not.toHaveProperty("serverDomain");
  });

  test("GET cubes is paginated: page and limit, default 20, max 100, invalid → 400", async ({ api }) => {
    for (let i = 0; i < 23; i++) await api.createCube({ name: `c${i}` });
    const first = await api.call("GET", "/cubes");
    expect(first.body.cubes).toHaveLength(20);
    expect(first.body.pagination).toEqual({ page: 1, limit: 20, total: 23, totalPages: 2 });
    const second = await api.call("GET", "/cubes?page=2&limit=20");
    expect(second.body.cubes.map((c: { name: string }) => c.name)).toEqual(["c20", "c21", "c22"]);
    const small = await api.call("GET", "/cubes?page=3&limit=10");
    expect(small.body.cubes).toHaveLength(3);
    for (const bad of ["limit=0", "limit=101", "limit=abc", "page=0", "page=-1"]) {
      expect((await api.call("GET", `/cubes?${bad}`)).status, bad).toBe(400);
    }
  });

  test("an unknown cube id is a 404 with an error string", async ({ api }) => {
    const result = await api.call("GET", "/cubes/cube_nope");
    expect(result.status).toBe(404);
    expect(typeof result.body.error).toBe("string");
  });
});
