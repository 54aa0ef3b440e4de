/** Impossible IP addresses and CIDRs are a 400 on every list that takes them, and nothing is stored. */
import { describe, expect } from "vitest";
import { test } from "../support/emulator.js";

const BAD = ["1.2.3.4/33", "256.1.1.1", "2001:db8::/129", "300.1.1.1/40", "01.2.3.4", "1.2.3.4/"];

describe("addresses and CIDRs", () => {
  test("a TCP mapping's whitelistedIps, a domain's ipAllowList and ipDenyList refuse impossible addresses with 400", async ({ api }) => {
    const cube = await api.createCube();
    for (const cidr of BAD) {
      const port = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 5432, whitelistedIps: [cidr] });
      expect(port.status, cidr).toBe(400);
      const domain = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "app.example.com", port: 80, ipAllowList: [cidr] });
      expect(domain.status, cidr).toBe(400);
    }
    expect((await api.call("GET", `/cubes/${cube.id}/tcp-mappings`)).body.tcpMappings.filter((m: { isSsh: boolean }) => !m.isSsh)).toEqual(
      [],
    );
    const attached = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "app.example.com", port: 80 });
    const patched = await api.call("PATCH", `/cubes/${cube.id}/domains/${attached.body.domain.id}`, { ipDenyList: ["10.0.0.0/33"] });
    expect(patched.status).toBe(400);
  });

  test("valid IPv4 and IPv6 addresses and CIDRs are accepted", async ({ api }) => {
    const cube = await api.createCube();
    const port = await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, {
      cubePort: 5432,
      whitelistedIps: ["203.0.113.0/24", "198.51.100.7", "2001:db8::/32", "::1"],
    });
    expect(port.status).toBe(201);
  });
});
