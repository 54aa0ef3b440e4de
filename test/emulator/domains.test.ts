import { describe, expect } from "vitest";
import { test } from "../support/emulator.js";

describe("domains", () => {
  test("an exact host needs one routing CNAME to dns.krova.cloud that may be proxied", async ({ api }) => {
    const cube = await api.createCube();
    const result = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "app.example.com", port: 3000 });
    expect(result.status).toBe(201);
    expect(result.body.domain).toMatchObject({
      domain: "app.example.com",
      port: 3000,
      isWildcard: false,
      cubeId: cube.id,
      originScheme: "http",
      proxyProtocol: null,
    });
    expect(result.body.records).toEqual([
      expect.objectContaining({
        id: "routing",
        purpose: "routing",
        type: "CNAME",
        host: "app.example.com",
        value: "dns.krova.cloud",
        mustBeGrey: false,
        proxyOk: true,
      }),
    ]);
  });

  test("§2 domains: a wildcard needs ownership TXT, routing CNAME and an _acme-challenge CNAME that must be DNS-only", async ({ api }) => {
    const cube = await api.createCube();
    const { body } = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "*.example.org", port: 80 });
    const byId = Object.fromEntries(body.records.map((r: { id: string }) => [r.id, r]));
    expect(body.records).toHaveLength(3);
    expect(byId.ownership).toMatchObject({
      type: "TXT",
      host: "_krova-verify.example.org",
      value: expect.stringMatching(/^krova-verify=/),
    });
    expect(byId.routing).toMatchObject({
      type: "CNAME",
      host: "*.example.org",
      value: "dns.krova.cloud",
      proxyOk: true,
      mustBeGrey: false,
    });
    expect(byId.certificate).toMatchObject({
      type: "CNAME",
      host: "_acme-challenge.example.org",
      value: expect.stringMatching(/\.acme\.krova\.cloud$/),
      mustBeGrey: true,
      proxyOk: false,
    });
    expect(body.domain).toMatchObject({ isWildcard: true, acmeDelegationTarget: byId.certificate.value });
  });

  test("§2 records view: missing → mismatch → found, unknown when unchecked; summary.complete only when all found", async ({
    api,
    emu,
  }) => {
    const cube = await api.createCube();
    const { body } = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "*.shop.example", port: 80 });
    const path = `/cubes/${cube.id}/domains/${body.domain.id}/records`;
    const states = async () => {
      const view = (await api.call("GET", path)).body;
      return {
        states: Object.fromEntries(view.records.map((r: { id: string; state: string }) => [r.id, r.state])),
        summary: view.summary,
        view,
      };
    };
    const initial = await states();
    expect(initial.states).toEqual({ ownership: "missing", routing: "missing", certificate: "missing" });
    expect(initial.summary).toEqual({ found: 0, total: 3, complete: false });
    expect(initial.view).toMatchObject({ domain: "*.shop.example", isWildcard: true, checkedAt: expect.any(String) });

    const [ownership, routing, certificate] = body.records;
    emu.admin.publishDns({ type: "TXT", host: ownership.host, value: ownership.value });
    emu.admin.publishDns({ type: "CNAME", host: routing.host, value: "elsewhere.example.net" });
    emu.admin.setDnsUnavailable(certificate.host, true);
    const mixed = await states();
    expect(mixed.states).toEqual({ ownership: "found", routing: "mismatch", certificate: "unknown" });
    expect(mixed.view.records[1].observed).toEqual(["elsewhere.example.net"]);
    expect(mixed.summary.complete).toBe(false);

    emu.admin.publishDns({ type: "CNAME", host: routing.host, value: "DNS.KROVA.CLOUD." });
    emu.admin.setDnsUnavailable(certificate.host, false);
    emu.admin.publishDns({ type: "CNAME", host: `${certificate.host}.`, value: certificate.value });
    const done = await states();
    expect(done.states).toEqual({ ownership: "found", routing: "found", certificate: "found" });
    expect(done.summary).toEqual({ found: 3, total: 3, complete: true });

    emu.admin.removeDns({ type: "TXT", host: ownership.host });
    expect((await states()).states.ownership).toBe("missing");
  });

  test("a hostname attached anywhere in the emulator cannot be attached again (409)", async ({ api, emu }) => {
    const other = emu.admin.createSpace();
    const foreign = await api.as(other.ownerKey, other.spaceId).createCube();
    await api.as(other.ownerKey, other.spaceId).call("POST", `/cubes/${foreign.id}/domains`, { domain: "taken.example.com", port: 80 });
    const mine = await api.createCube();
    const result = await api.call("POST", `/cubes/${mine.id}/domains`, { domain: "taken.example.com", port: 80 });
    expect(result.status).toBe(409);
    expect(result.body.error).toMatch(/taken\.example\.com/);
  });

  test("proxy settings on attach and PATCH; basic-auth password never returned; user without password is 400", async ({ api }) => {
    const cube = await api.createCube();
    const noPassword = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "a.example.com", port: 80, basicAuthUser: "admin" });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.error).toMatch(/basicAuthPassword/);
    const settings = {
      securityHeadersMode: "app_managed",
      responseHeaderTimeoutSecs: 120,
      responseHeaderOverrides: { set: { "x-a": "1" }, remove: ["server"] },
      requestHeaderOverrides: null,
      maxRequestBodyMb: 50,
      corsConfig: { allowedOrigins: ["https://app.example.com"] },
      originScheme: "https",
      responseCompression: true,
      ipAllowList: ["10.0.0.0/8"],
      ipDenyList: null,
      basicAuthUser: "admin",
      basicAuthPassword: "s3cret-pass",
      proxyProtocol: "v2",
    };
    const attached = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "a.example.com", port: 80, ...settings });
    expect(attached.status).toBe(201);
    const { basicAuthPassword: _hidden, ...visible } = settings;
    expect(attached.body.domain).toMatchObject({ ...visible, basicAuthEnabled: true });
    expect(JSON.stringify(attached.body)).not.toContain("s3cret-pass");

    const patched = await api.call("PATCH", `/cubes/${cube.id}/domains/${attached.body.domain.id}`, {
      basicAuthUser: null,
      responseCompression: false,
      proxyProtocol: null,
      confirmMixedProxyProtocol: true,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.domain).toMatchObject({
      basicAuthUser: null,
      basicAuthEnabled: false,
      responseCompression: false,
      originScheme: "https",
      maxRequestBodyMb: 50,
      proxyProtocol: null,
    });
    const listed = await api.call("GET", `/cubes/${cube.id}/domains`);
    expect(listed.body.domains).toEqual([patched.body.domain]);
    expect((await api.call("PATCH", `/cubes/${cube.id}/domains/${attached.body.domain.id}`, { responseHeaderTimeoutSecs: 5 })).status).toBe(
      400,
    );
  });

  test("domains of one cube port must agree on PROXY protocol unless confirmMixedProxyProtocol (409 errorMeta)", async ({ api }) => {
    const cube = await api.createCube();
    await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "p1.example.com", port: 443, proxyProtocol: "v1" });
    const mismatch = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "p2.example.com", port: 443 });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body).toMatchObject({
      error: expect.any(String),
      errorMeta: { code: "proxy_protocol_port_mismatch", port: 443, domains: ["p1.example.com"] },
    });
    const confirmed = await api.call("POST", `/cubes/${cube.id}/domains`, {
      domain: "p2.example.com",
      port: 443,
      confirmMixedProxyProtocol: true,
    });
    expect(confirmed.status).toBe(201);
  });

  test("DELETE detaches ({success:true}); the records of a detached domain are a 404", async ({ api }) => {
    const cube = await api.createCube();
    const { body } = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "bye.example.com", port: 80 });
    expect((await api.call("DELETE", `/cubes/${cube.id}/domains/${body.domain.id}`)).body).toEqual({ success: true });
    expect((await api.call("GET", `/cubes/${cube.id}/domains/${body.domain.id}/records`)).status).toBe(404);
    expect((await api.call("GET", `/cubes/${cube.id}/domains`)).body.domains).toEqual([]);
  });
});
