import { describe, expect, test } from "vitest";
import { diff, type DesiredDomainSpec } from "../../engine/index.js";
import { cube, desired, domain, live, observed, spec } from "./fixtures.js";

const web = cube("web");

function planFor(domains: DesiredDomainSpec[] | undefined, liveDomains = [domain(web.id, "app.example.com")]) {
  return diff(desired([spec("web", { domains })]), observed([live(web, { domains: liveDomains })]));
}

describe("diff: domains", () => {
  test("a missing domain is attached with its declared settings; the password travels as a reference", () => {
    const plan = planFor(
      [
        {
          hostname: "new.example.com",
          port: 3000,
          settings: { basicAuthUser: "admin", ipAllowList: ["10.0.0.0/8"] },
          basicAuthPassword: { env: "NEW_PASS" },
        },
      ],
      [],
    );
    expect(plan.steps).toEqual([
      {
        op: "attach-domain",
        address: "cube/web/domain/new.example.com",
        cube: { cubeName: "web", cubeId: web.id },
        body: { hostname: "new.example.com", port: 3000, basicAuthUser: "admin", ipAllowList: ["10.0.0.0/8"] },
        basicAuthPassword: { env: "NEW_PASS" },
      },
    ]);
    expect(plan.changes[1]?.after).toMatchObject({ settings: { basicAuthPassword: "(sensitive)" } });
  });

  test("a live domain the file does not list is detached", () => {
    const plan = planFor([]);
    expect(plan.steps).toEqual([
      {
        op: "detach-domain",
        address: "cube/web/domain/app.example.com",
        cube: { cubeName: "web", cubeId: web.id },
        domainId: "dom-app.example.com",
      },
    ]);
    expect(plan.changes[1]).toMatchObject({ action: "delete", after: null });
  });

  test("domains are not managed when the cube leaves them undefined or ignores them", () => {
    expect(planFor(undefined).steps).toEqual([]);
    const plan = diff(
      desired([spec("web", { domains: [], lifecycle: { allowReplace: false, ignoreChanges: ["domains"] } })]),
      observed([live(web, { domains: [domain(web.id, "app.example.com")] })]),
    );
    expect(plan.steps).toEqual([]);
  });

  test("a port change replaces the domain: detach, then attach (hostnames are unique)", () => {
    const plan = planFor([{ hostname: "app.example.com", port: 9090, settings: {} }]);
    expect(plan.changes[1]).toMatchObject({
      action: "delete-then-create",
      changes: [{ path: "port", before: 8080, after: 9090, forcesReplace: true }],
    });
    expect(plan.steps.map((s) => s.op)).toEqual(["detach-domain", "attach-domain"]);
  });

  test("differing settings are patched, and only those", () => {
    const plan = planFor([
      {
        hostname: "app.example.com",
        port: 8080,
        settings: {
          originScheme: "https",
          responseCompression: true,
          ipDenyList: ["1.1.1.1/32"],
          corsConfig: { allowedOrigins: ["https://a.example"] },
        },
      },
    ]);
    expect(plan.steps).toEqual([
      {
        op: "patch-domain",
        address: "cube/web/domain/app.example.com",
        cube: { cubeName: "web", cubeId: web.id },
        domainId: "dom-app.example.com",
        body: { originScheme: "https", ipDenyList: ["1.1.1.1/32"], corsConfig: { allowedOrigins: ["https://a.example"] } },
      },
    ]);
    expect(plan.changes[1]?.changes.map((c) => c.path)).toEqual(["settings.originScheme", "settings.ipDenyList", "settings.corsConfig"]);
  });

  test("null, undefined and empty lists and objects mean the same; CIDR lists are sets", () => {
    const liveDomain = domain(web.id, "app.example.com", {
      ipAllowList: ["b/32", "a/32"],
      ipDenyList: [],
      responseHeaderOverrides: { set: {}, remove: [] },
      requestHeaderOverrides: undefined,
    });
    const plan = planFor(
      [
        {
          hostname: "app.example.com",
          port: 8080,
          settings: { ipAllowList: ["a/32", "b/32"], ipDenyList: null, responseHeaderOverrides: null, requestHeaderOverrides: {} },
        },
      ],
      [liveDomain],
    );
    expect(plan.steps).toEqual([]);
    expect(plan.changes[1]?.action).toBe("noop");
  });

  test("the password is sent whenever basicAuthUser is patched, and never compared otherwise", () => {
    const unchanged = planFor([
      { hostname: "app.example.com", port: 8080, settings: { basicAuthUser: null }, basicAuthPassword: { env: "P" } },
    ]);
    expect(unchanged.steps).toEqual([]);
    const plan = planFor([
      { hostname: "app.example.com", port: 8080, settings: { basicAuthUser: "admin" }, basicAuthPassword: { env: "P" } },
    ]);
    expect(plan.steps).toEqual([
      expect.objectContaining({ op: "patch-domain", body: { basicAuthUser: "admin" }, basicAuthPassword: { env: "P" } }),
    ]);
  });

  test("a hostname moving between cubes is detached from the old cube before it is attached to the new one", () => {
    const api = cube("api");
    const plan = diff(
      desired([spec("web", { domains: [] }), spec("api", { domains: [{ hostname: "app.example.com", port: 8080, settings: {} }] })]),
      observed([live(web, { domains: [domain(web.id, "app.example.com")] }), live(api)]),
    );
    expect(plan.steps.map((s) => `${s.op} ${s.address}`)).toEqual([
      "detach-domain cube/web/domain/app.example.com",
      "attach-domain cube/api/domain/app.example.com",
    ]);
  });

  test("settings the file does not declare are not managed", () => {
    const plan = planFor(
      [{ hostname: "app.example.com", port: 8080, settings: {}, basicAuthPassword: { env: "SECRET_ENV" } }],
      [domain(web.id, "app.example.com", { responseCompression: false, basicAuthUser: "x" })],
    );
    expect(plan.steps).toEqual([]);
  });
});
