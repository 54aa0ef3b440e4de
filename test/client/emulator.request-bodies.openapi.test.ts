import { afterEach, describe, expect, test } from "vitest";
import { createClient, newIdempotencyKey } from "../../client/index.js";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { matchPathTemplate, validateRequest } from "../support/openapi.js";
import { startRecordingProxy } from "./support/proxy.js";
import { cubeBody, waitForState } from "./support/emulator.js";

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

async function setup() {
  const fast = { limit: 1000, windowMs: 1000 };
  const emulator: RunningEmulator = await startEmulator({ clockSpeed: 200, rateLimit: fast });
  cleanup.push(() => emulator.close());
  const proxy = await startRecordingProxy(emulator.origin);
  cleanup.push(() => proxy.close());
  const client = createClient({ baseUrl: proxy.url, apiKey: emulator.apiKey, rateLimit: fast });
  cleanup.push(() => client.close());
  return { emulator, proxy, client };
}

describe("the client against the emulator: every operation, every request body checked against the reference OpenAPI", () => {
  test("a full lifecycle", async () => {
    const { emulator, proxy, client } = await setup();
    const c = client;
    expect(await c.spaceId()).toBe(emulator.spaceId);
    await c.listRegions();
    await c.listImages();
    await c.getPricing();

    const cube = await c.createCube(cubeBody("lifecycle"), { idempotencyKey: newIdempotencyKey() });
    await waitForState(c, cube.id, "running");
    await c.setTerminationProtection(cube.id, true);
    await c.setTerminationProtection(cube.id, false);
    await c.getSsh(cube.id);
    await c.setSshPort(cube.id, 2222);

    const mapping = await c.createTcpMapping(
      cube.id,
      { cubePort: 5432, label: "db", udp: false, allow: ["203.0.113.0/24"] },
      { idempotencyKey: newIdempotencyKey() },
    );
    await c.listTcpMappings(cube.id);
    const attached = await c.attachDomain(
      cube.id,
      {
        hostname: "app.example.com",
        port: 8080,
        securityHeadersMode: "app_managed",
        corsConfig: { allowedOrigins: ["https://a.example"] },
        ipAllowList: ["10.0.0.0/8"],
      },
      { idempotencyKey: newIdempotencyKey() },
    );
    expect(attached.records.length).toBeGreaterThan(0);
    await c.patchDomain(cube.id, attached.domain.id, { responseHeaderTimeoutSecs: 120, corsConfig: null });
    await c.listDomains(cube.id);
    const records = await c.getDomainRecords(cube.id, attached.domain.id);
    expect(records.summary.complete).toBe(false);

    const snapshot = await c.createSnapshot(cube.id, { name: "before" }, { idempotencyKey: newIdempotencyKey() });
    await c.listSnapshots(cube.id);

    await c.powerOff(cube.id);
    await waitForState(c, cube.id, "stopped");
    await c.wake(cube.id);
    await waitForState(c, cube.id, "running");
    await c.restart(cube.id);

    const webhook = await c.createWebhook({ url: "https://example.com/hook", events: ["cube.created"], description: "ops" });
    expect(webhook.secret).toBeTruthy();
    await c.listWebhooks();
    await c.getWebhook(webhook.id);
    await c.listWebhookDeliveries(webhook.id, 10);
    await c.deleteWebhook(webhook.id);

    await c.deleteTcpMapping(cube.id, mapping.id);
    await c.detachDomain(cube.id, attached.domain.id);
    await waitForState(c, cube.id, "running");
    await c.deleteSnapshot(cube.id, snapshot.id);
    await c.deleteCube(cube.id);

    const problems: string[] = [];
    for (const r of proxy.recorded) {
      const template = matchPathTemplate(r.method, r.path);
      if (template === undefined) {
        problems.push(`${r.method} ${r.path}: not in the reference`);
        continue;
      }
      const errors = validateRequest(r.method, template, r.body);
      if (errors.length > 0) problems.push(`${r.method} ${template}: ${errors.join("; ")}`);
    }
    expect(problems).toEqual([]);
    expect(proxy.recorded.filter((r) => r.body !== undefined).length).toBeGreaterThanOrEqual(9);
  });
});
