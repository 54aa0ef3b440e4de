/**
 * A scripted tour of every endpoint; each response is validated against the matching response
 * schema of the live service's reference document (shared/reference/krova-openapi.json).
 */
import { describe, expect } from "vitest";
import { Api, cubeBody, FAST, test, type ApiResult } from "../support/emulator.js";
import { referenceOpenApi } from "../../schema/reference.js";
import { matchPathTemplate, validateResponse } from "../support/openapi.js";
import { waitFor } from "../support/wait.js";

interface Seen {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

class RecordingApi extends Api {
  readonly seen: Seen[] = [];
  override as(key: string | undefined, spaceId = this.spaceId): RecordingApi {
    const other = new RecordingApi(this.url, key, spaceId);
    (other as { seen: Seen[] }).seen = this.seen;
    return other;
  }
  override async call<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResult<T>> {
    const result = await super.call<T>(method, path, body, headers);
    const full = /^\/(cubes|webhooks|audit-log)/.test(path) ? `/spaces/${this.spaceId}${path}` : path;
    this.seen.push({ method, path: full.split("?")[0] ?? full, status: result.status, body: result.body });
    return result;
  }
}

/** Responses that differ from the reference on purpose, because the spec says so. */
function specDeviation(seen: Seen): boolean {
  const typed409 = (seen.body as { error?: { code?: string } })?.error?.code === "termination_protected";
  return seen.method === "DELETE" && seen.status === 409 && typed409;
}

/** Emulator additions absent from the reference: checked here by hand. */
const EMULATOR_ONLY = new Set(["/openapi.json", "/spaces/{spaceId}/audit-log"]);

const EXTRA_FIELDS: Record<string, string[]> = {
  Cube: ["region"],
  Domain: ["originScheme", "proxyProtocol"],
  Webhook: ["description", "secret"],
};

/** The reference sets no additionalProperties: false, so say here that no field is invented. */
function inventedFields(body: unknown): string[] {
  const schemas = referenceOpenApi().components.schemas;
  const problems: string[] = [];
  const check = (name: string, value: unknown) => {
    if (!value || typeof value !== "object") return;
    const known = new Set([...Object.keys((schemas[name]?.properties ?? {}) as object), ...(EXTRA_FIELDS[name] ?? [])]);
    for (const key of Object.keys(value)) if (!known.has(key)) problems.push(`${name}.${key}`);
  };
  const b = (body ?? {}) as Record<string, any>;
  check("Cube", b.cube);
  for (const cube of b.cubes ?? []) check("Cube", cube);
  check("TcpMapping", b.tcpMapping);
  for (const m of b.tcpMappings ?? []) check("TcpMapping", m);
  check("Domain", b.domain);
  for (const d of b.domains ?? []) check("Domain", d);
  check("Snapshot", b.snapshot);
  for (const s of b.snapshots ?? []) check("Snapshot", s);
  check("Webhook", b.webhook);
  for (const w of b.webhooks ?? []) check("Webhook", w);
  for (const d of b.deliveries ?? []) check("WebhookDelivery", d);
  return problems;
}

async function tour(api: RecordingApi, emu: { admin: any; spaceId: string }): Promise<void> {
  const anon = api.as(undefined);
  await anon.call("GET", "/regions");
  await anon.call("GET", "/images");
  await anon.call("GET", "/pricing");
  await anon.call("GET", "/openapi.json");
  await anon.call("GET", "/space");
  await api.call("GET", "/space");
  await anon.call("GET", "/cubes");
  await api.as(emu.admin.createSpace().ownerKey).call("GET", "/cubes");

  await api.call("POST", "/cubes", cubeBody({ name: "" }));
  const created = await api.call("POST", "/cubes", cubeBody({ name: "tour" }));
  const cubeId = created.body.cube.id;
  const c = `/cubes/${cubeId}`;
  await api.call("GET", "/cubes?limit=5");
  await api.call("GET", c);
  await api.call("GET", "/cubes/cube_missing");
  await api.waitForState(cubeId, "running");
  await api.call("PATCH", c, { terminationProtection: true });
  await api.call("PATCH", c, { terminationProtection: true });
  await api.call("DELETE", c);
  await api.call("GET", "/audit-log");

  await api.call("GET", `${c}/ssh`);
  await api.call("PUT", `${c}/ssh-port`, { cubePort: 2200 });
  await api.call("PUT", `${c}/ssh-port`, { cubePort: 99999 });
  const tcp = await api.call("POST", `${c}/tcp-mappings`, { cubePort: 8080, label: "web", whitelistedIps: ["192.0.2.0/24"] });
  await api.call("POST", `${c}/tcp-mappings`, { cubePort: 8080 });
  await api.call("POST", `${c}/tcp-mappings`, { cubePort: "x" });
  await api.call("GET", `${c}/tcp-mappings`);
  const sshId = (await api.call("GET", `${c}/tcp-mappings`)).body.tcpMappings.find((m: { isSsh: boolean }) => m.isSsh).id;
  await api.call("DELETE", `${c}/tcp-mappings/${sshId}`);
  await api.call("GET", c);

  const exact = await api.call("POST", `${c}/domains`, {
    domain: "tour.example.com",
    port: 8080,
    basicAuthUser: "u",
    basicAuthPassword: "p",
  });
  const wild = await api.call("POST", `${c}/domains`, { domain: "*.tour.example", port: 8080 });
  await api.call("POST", `${c}/domains`, { domain: "tour.example.com", port: 8080 });
  await api.call("POST", `${c}/domains`, { domain: "Not A Host", port: 8080 });
  await api.call("GET", `${c}/domains`);
  await api.call("PATCH", `${c}/domains/${exact.body.domain.id}`, {
    corsConfig: { allowedOrigins: ["*"] },
    ipDenyList: ["198.51.100.0/24"],
  });
  await api.call("PATCH", `${c}/domains/${exact.body.domain.id}`, { basicAuthUser: "only-user" });
  emu.admin.publishDns({ type: "CNAME", host: "tour.example.com", value: "dns.krova.cloud" });
  emu.admin.setDnsUnavailable("_acme-challenge.tour.example", true);
  await api.call("GET", `${c}/domains/${exact.body.domain.id}/records`);
  await api.call("GET", `${c}/domains/${wild.body.domain.id}/records`);
  await api.call("GET", `${c}/domains/dom_missing/records`);
  await api.call("DELETE", `${c}/domains/${wild.body.domain.id}`);
  await api.call("DELETE", `${c}/domains/${wild.body.domain.id}`);

  const snapshot = await api.call("POST", `${c}/snapshots`, { name: "tour-snap" });
  await api.call("POST", `${c}/snapshots`);
  await api.call("GET", `${c}/snapshots`);
  await waitFor(async () => (await api.call("GET", `${c}/snapshots`)).body.snapshots[0].status === "complete");
  await api.call("POST", `${c}/restore`, { snapshotId: snapshot.body.snapshot.id });
  await api.call("POST", `${c}/restore`, {});
  await api.call("DELETE", `${c}/snapshots/${snapshot.body.snapshot.id}`);
  await api.call("DELETE", `${c}/snapshots/${snapshot.body.snapshot.id}`);

  // Real-time clock for the pair: the second restart must arrive while the first still boots,
  // even when a loaded machine delays it by more than the fast clock's boot time.
  emu.admin.setClockSpeed(1);
  await api.call("POST", `${c}/restart`);
  await api.call("POST", `${c}/restart`);
  emu.admin.setClockSpeed(FAST.clockSpeed ?? 200);
  await api.waitForState(cubeId, "running");
  await api.call("POST", `${c}/power-off`);
  await api.call("POST", `${c}/power-off`);
  await api.waitForState(cubeId, "stopped");
  await api.call("POST", `${c}/wake`);
  await api.call("POST", `${c}/wake`);

  const hook = await api.call("POST", "/webhooks", { url: "http://127.0.0.1:9/hook", events: ["cube.deleted"], description: "tour" });
  await api.call("POST", "/webhooks", { url: "not a url", events: ["cube.deleted"] });
  await api.call("GET", "/webhooks");
  await api.call("GET", `/webhooks/${hook.body.webhook.id}`);
  await api.call("GET", `/webhooks/${hook.body.webhook.id}/deliveries?limit=10`);
  await api.call("GET", `/webhooks/${hook.body.webhook.id}/deliveries?limit=0`);

  await api.call("DELETE", `${c}/tcp-mappings/${tcp.body.tcpMapping.id}`);
  await api.call("PATCH", c, { terminationProtection: false });
  await api.call("DELETE", c);
  await api.call("DELETE", `/webhooks/${hook.body.webhook.id}`);
  await api.call("GET", `/webhooks/${hook.body.webhook.id}`);

  emu.admin.setRateLimit({ limit: 1, windowMs: 60_000 });
  await api.call("POST", "/cubes", cubeBody());
  await api.call("POST", "/cubes", cubeBody());
}

describe("OpenAPI conformance of every response", () => {
  test("a tour of all endpoints: every response matches the reference's schema for its path, method and status", async ({ api, emu }) => {
    const recorder = new RecordingApi(api.url, api.key, api.spaceId);
    await tour(recorder, emu);

    const failures: string[] = [];
    const statuses = new Set<string>();
    for (const seen of recorder.seen) {
      const template = matchPathTemplate(seen.method, seen.path);
      const label = `${seen.method} ${template ?? seen.path} → ${seen.status}`;
      statuses.add(label);
      if (specDeviation(seen)) continue;
      if (!template) {
        const emulatorOnly = [...EMULATOR_ONLY].some((p) => new RegExp(`^${p.replace(/\{\w+\}/g, "[^/]+")}$`).test(seen.path));
        if (!emulatorOnly) failures.push(`${label}: path not in the reference`);
        continue;
      }
      for (const error of validateResponse(seen.method, template, seen.status, seen.body)) failures.push(`${label}: ${error}`);
      for (const field of inventedFields(seen.body)) failures.push(`${label}: invented field ${field}`);
    }
    expect(failures).toEqual([]);
    // The tour reached what it set out to: each status below was actually produced.
    for (const expected of [
      "POST /spaces/{spaceId}/cubes → 201",
      "POST /spaces/{spaceId}/cubes → 400",
      "POST /spaces/{spaceId}/cubes → 429",
      "DELETE /spaces/{spaceId}/cubes/{cubeId} → 409",
      "DELETE /spaces/{spaceId}/cubes/{cubeId} → 200",
      "GET /spaces/{spaceId}/cubes → 401",
      "GET /spaces/{spaceId}/cubes → 403",
      "GET /spaces/{spaceId}/cubes/{cubeId}/domains/{mappingId}/records → 200",
      "POST /spaces/{spaceId}/cubes/{cubeId}/restart → 409",
      "GET /spaces/{spaceId}/webhooks/{endpointId}/deliveries → 200",
    ]) {
      expect(statuses, expected).toContain(expected);
    }
    const audit = recorder.seen.find((s) => s.path.endsWith("/audit-log"));
    expect(audit?.body).toEqual({ auditRows: [expect.objectContaining({ category: "cube", action: "termination_protection.enabled" })] });
    expect(recorder.seen.length).toBeGreaterThan(60);
  });
});
