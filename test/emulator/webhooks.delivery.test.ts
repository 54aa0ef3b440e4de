import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect } from "vitest";
import { test } from "../support/emulator.js";
import { waitFor } from "../support/wait.js";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A receiver answering with the given statuses in turn (the last one repeats). */
async function receiver(statuses: number[]): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(statuses[Math.min(received.length - 1, statuses.length - 1)] ?? 200).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

function verify(secret: string, header: string, body: string): boolean {
  const fields = Object.fromEntries(header.split(",").map((part) => part.split("=") as [string, string]));
  const expected = createHmac("sha256", secret).update(`${fields.t}.${body}`).digest();
  const given = Buffer.from(fields.v1 ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(given, expected) && Math.abs(Date.now() / 1000 - Number(fields.t)) <= 300;
}

describe("webhooks", () => {
  test("create returns the whsec_ secret once; get and list never do; invalid body is 400", async ({ api }) => {
    const created = await api.call("POST", "/webhooks", { url: "http://127.0.0.1:9/x", events: ["cube.created"], description: "ci" });
    expect(created.status).toBe(201);
    expect(created.body.webhook).toMatchObject({
      url: "http://127.0.0.1:9/x",
      events: ["cube.created"],
      enabled: true,
      description: "ci",
      secret: expect.stringMatching(/^whsec_/),
    });
    const one = await api.call("GET", `/webhooks/${created.body.webhook.id}`);
    expect(one.body.webhook).not.toHaveProperty("secret");
    expect(one.body.webhook.description).toBe("ci");
    const list = await api.call("GET", "/webhooks");
    expect(list.body.webhooks).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    expect((await api.call("POST", "/webhooks", { url: "https://x.example", events: ["cube.sleeping"] })).status).toBe(400);
    expect((await api.call("POST", "/webhooks", { events: ["cube.created"] })).status).toBe(400);
  });

  test("§6 deliveries are signed t=<unix>,v1=HMAC-SHA256(secret, t.body) and retried after a failure", async ({ api, emu }) => {
    emu.admin.setClockSpeed(1000);
    const hook = await receiver([500, 200]);
    const { body } = await api.call("POST", "/webhooks", { url: hook.url, events: ["cube.created", "cube.running"] });
    const secret = body.webhook.secret as string;
    const cube = await api.createCube({ name: "hooked" });
    await waitFor(() => hook.received.length >= 3, { message: "three deliveries (created failed, created retried, running)" });

    const created = hook.received.filter((r) => r.headers["x-krova-event"] === "cube.created");
    expect(created).toHaveLength(2);
    for (const request of hook.received) {
      expect(verify(secret, String(request.headers["x-krova-signature"]), request.body)).toBe(true);
      expect(verify("whsec_wrong", String(request.headers["x-krova-signature"]), request.body)).toBe(false);
      expect(request.headers["x-krova-delivery"]).toMatch(/^dlv_/);
      expect(request.headers["content-type"]).toBe("application/json");
    }
    expect(created[0]?.headers["x-krova-delivery"]).toBe(created[1]?.headers["x-krova-delivery"]);
    const payload = JSON.parse(created[0]?.body ?? "{}");
    expect(payload).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      event: "cube.created",
      spaceId: emu.spaceId,
      createdAt: expect.any(String),
      data: { id: cube.id, name: "hooked", state: "pending", publicIpv4: null },
    });

    const deliveries = await waitFor(async () => {
      const list = (await api.call("GET", `/webhooks/${body.webhook.id}/deliveries`)).body.deliveries;
      return list.length === 2 && list.every((d: { status: string }) => d.status === "delivered") ? list : undefined;
    });
    const createdDelivery = deliveries.find((d: { event: string }) => d.event === "cube.created");
    expect(createdDelivery).toMatchObject({ status: "delivered", attempts: 2, responseStatus: 200, lastAttemptAt: expect.any(String) });
    expect(deliveries[0].event).toBe("cube.running");
  });

  test("an endpoint that keeps failing gets 5 attempts in all, then the delivery is failed", async ({ api, emu }) => {
    emu.admin.setClockSpeed(2000);
    const hook = await receiver([503]);
    const { body } = await api.call("POST", "/webhooks", { url: hook.url, events: ["tcp_mapping.added"] });
    const cube = await api.createCube();
    await api.call("POST", `/cubes/${cube.id}/tcp-mappings`, { cubePort: 9000 });
    const [delivery] = await waitFor(async () => {
      const list = (await api.call("GET", `/webhooks/${body.webhook.id}/deliveries?limit=1`)).body.deliveries;
      return list[0]?.status === "failed" ? list : undefined;
    });
    expect(delivery).toMatchObject({ event: "tcp_mapping.added", attempts: 5, responseStatus: 503 });
    expect(hook.received).toHaveLength(5);
  });

  test("deliveries: ?limit 1..100, newest first; deleting the webhook cascades its deliveries", async ({ api, emu }) => {
    emu.admin.setClockSpeed(1000);
    const hook = await receiver([200]);
    const { body } = await api.call("POST", "/webhooks", {
      url: hook.url,
      events: ["snapshot.created", "snapshot.deleted", "domain.added", "domain.removed"],
    });
    const cube = await api.createCube();
    const domain = await api.call("POST", `/cubes/${cube.id}/domains`, { domain: "events.example.com", port: 80 });
    await api.call("DELETE", `/cubes/${cube.id}/domains/${domain.body.domain.id}`);
    await waitFor(() => hook.received.length === 2);
    const path = `/webhooks/${body.webhook.id}/deliveries`;
    expect((await api.call("GET", `${path}?limit=1`)).body.deliveries.map((d: { event: string }) => d.event)).toEqual(["domain.removed"]);
    expect((await api.call("GET", `${path}?limit=101`)).status).toBe(400);
    expect((await api.call("DELETE", `/webhooks/${body.webhook.id}`)).body).toEqual({ success: true });
    expect((await api.call("GET", path)).status).toBe(404);
    expect(JSON.parse(hook.received[0]?.body ?? "{}").data.domain.domain).toBe("events.example.com");
  });
});
