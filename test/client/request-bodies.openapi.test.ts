import { describe, expect, test } from "vitest";
import { useHarness } from "./support/client.js";
import { matchPathTemplate, validateRequest } from "../support/openapi.js";
import { CREATE_BODY, sampleApiDomain, sampleApiTcpMapping, sampleCube, sampleSnapshot } from "./support/server.js";

const harness = useHarness();

const domain = sampleApiDomain();
const mapping = sampleApiTcpMapping();
const snapshot = sampleSnapshot();
const webhook = {
  id: "w1",
  url: "https://example.com/h",
  events: ["cube.created"],
  enabled: true,
  createdAt: "2026-01-01",
  updatedAt: "2026-01-01",
  secret: "whsec",
};

/** Answers each operation with a plausible body, so every client method completes. */
function answer(r: { method: string; path: string }) {
  if (r.path.endsWith("/domains")) return { status: 201, body: { domain, records: [] } };
  if (/\/domains\/[^/]+$/.test(r.path)) return { body: { domain } };
  if (r.path.endsWith("/tcp-mappings")) return { status: 201, body: { tcpMapping: mapping } };
  if (r.path.endsWith("/snapshots")) return { status: 201, body: { snapshot } };
  if (r.path.endsWith("/webhooks")) return { status: 201, body: { webhook } };
  if (r.method === "POST" && r.path.endsWith("/cubes")) return { status: 201, body: { cube: sampleCube("c1") } };
  if (r.method === "PATCH") return { body: { cube: sampleCube("c1", { terminationProtection: true }) } };
  return { body: { success: true } };
}

describe("every request body the client sends validates against the reference OpenAPI request schema", () => {
  test("all mutating operations", async () => {
    const h = await harness(answer);
    const c = h.client;
    await c.createCube(
      { ...CREATE_BODY, region: "eu-nuremberg", userData: "#cloud-config\n", terminationProtection: true },
      { idempotencyKey: "k1" },
    );
    await c.createCube(CREATE_BODY, { idempotencyKey: "k2" });
    await c.setTerminationProtection("c1", true);
    await c.setTerminationProtection("c1", false);
    await c.setSshPort("c1", 2222);
    await c.powerOff("c1");
    await c.wake("c1");
    await c.restart("c1");
    await c.attachDomain(
      "c1",
      {
        hostname: "app.example.com",
        port: 8080,
        securityHeadersMode: "app_managed",
        responseHeaderTimeoutSecs: 120,
        responseHeaderOverrides: { set: { "x-a": "1" }, remove: ["server"] },
        requestHeaderOverrides: null,
        maxRequestBodyMb: 50,
        corsConfig: { allowedOrigins: ["https://a.example"], allowCredentials: true, maxAgeSeconds: 600 },
        originScheme: "https",
        responseCompression: true,
        ipAllowList: ["10.0.0.0/8"],
        ipDenyList: null,
        basicAuthUser: "admin",
        basicAuthPassword: "pw",
      },
      { idempotencyKey: "k3" },
    );
    await c.patchDomain("c1", "d1", { maxRequestBodyMb: null, corsConfig: null, basicAuthUser: null, responseHeaderOverrides: null });
    await c.createTcpMapping("c1", { cubePort: 5432, label: "db", udp: false, allow: ["203.0.113.0/24"] }, { idempotencyKey: "k4" });
    await c.createSnapshot("c1", { name: "before-upgrade" }, { idempotencyKey: "k5" });
    await c.createSnapshot("c1", {}, { idempotencyKey: "k6" });
    await c.restoreSnapshot("c1", "sn1");
    await c.createWebhook({ url: "https://example.com/hook", events: ["cube.created", "cube.deleted"], description: "ops" });
    await c.deleteTcpMapping("c1", "m1");
    await c.detachDomain("c1", "d1");
    await c.deleteSnapshot("c1", "sn1");
    await c.deleteCube("c1");

    expect(h.server.received.length).toBe(19);
    const problems: string[] = [];
    for (const r of h.server.received) {
      const template = matchPathTemplate(r.method, r.path);
      if (template === undefined) {
        problems.push(`${r.method} ${r.path}: no such operation in the reference`);
        continue;
      }
      const errors = validateRequest(r.method, template, r.body);
      if (errors.length > 0) problems.push(`${r.method} ${template}: ${errors.join("; ")}`);
      if (r.body !== undefined) expect(r.headers["content-type"]).toBe("application/json");
    }
    expect(problems).toEqual([]);
  });

  test("the validator itself rejects a wrong body (the test above can fail)", () => {
    expect(validateRequest("PUT", "/spaces/{spaceId}/cubes/{cubeId}/ssh-port", { cubePort: "22" })).not.toEqual([]);
    expect(validateRequest("PATCH", "/spaces/{spaceId}/cubes/{cubeId}/domains/{mappingId}", { maxRequestBodyMb: null })).toEqual([]);
    expect(validateRequest("POST", "/spaces/{spaceId}/cubes/{cubeId}/power-off", { force: true })).not.toEqual([]);
    expect(matchPathTemplate("DELETE", "/spaces/s/cubes/c/tcp-mappings/m")).toBe(
      "/spaces/{spaceId}/cubes/{cubeId}/tcp-mappings/{mappingId}",
    );
  });
});
