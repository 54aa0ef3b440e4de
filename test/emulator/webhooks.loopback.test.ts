/**
 * The emulator sends webhook deliveries only to loopback addresses unless started with
 * deliverAnywhere (issue 20 item 6): a delivery to a public name is recorded failed with the
 * reason and nothing is sent; a loopback receiver still gets its deliveries. No name but
 * localhost is looked up.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { deliveryRefusal, isLoopbackHostHeader } from "../../emulator/core/loopback.js";
import { main } from "../../reconciler/main.js";
import { Api, test } from "../support/emulator.js";
import { waitFor } from "../support/wait.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function receiver(): Promise<{ url: string; received: string[] }> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(String(req.headers["x-krova-event"]));
    res.writeHead(200).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

describe("where deliveries may go", () => {
  it("loopback literals in any spelling go; public names, private and unspecified addresses do not", async () => {
    const allowed = [
      "http://127.0.0.1:9/x",
      "http://127.8.9.10/",
      "http://[::1]:80/",
      "http://[::ffff:127.0.0.1]/",
      "http://0x7f.1/",
      "http://2130706433/",
    ];
    for (const url of allowed) expect(await deliveryRefusal(url, { deliverAnywhere: false }), url).toBeUndefined();
    const refused = [
      "https://hooks.example.com/cube",
      "http://10.0.0.1/",
      "http://192.168.1.1/",
      "http://0.0.0.0/",
      "http://[::]/",
      "http://[::ffff:a00:1]/",
      "http://127.0.0.1.nip.io/",
      "http://localhost.example.com/",
    ];
    for (const url of refused)
      expect(await deliveryRefusal(url, { deliverAnywhere: false }), url).toMatch(
        /^not delivered: the emulator delivers only to loopback addresses \(start it with --deliver-anywhere\)/,
      );
  });

  it("localhost goes when it resolves to loopback; with deliverAnywhere every address goes", async () => {
    expect(await deliveryRefusal("http://localhost:9/x", { deliverAnywhere: false })).toBeUndefined();
    expect(await deliveryRefusal("https://hooks.example.com/cube", { deliverAnywhere: true })).toBeUndefined();
  });

  it("Host headers of the admin surface: loopback names and literals only", () => {
    for (const host of ["127.0.0.1:8787", "localhost:8787", "LOCALHOST", "[::1]:8787", "127.0.0.1", undefined])
      expect(isLoopbackHostHeader(host), String(host)).toBe(true);
    for (const host of ["evil.example", "evil.example:8787", "127.0.0.1.evil.example", "192.168.1.5:8787", "", "a b"])
      expect(isLoopbackHostHeader(host), host).toBe(false);
  });
});

test("a delivery to a public name is failed at once with the reason, while a loopback endpoint gets its own", async ({ api, emu }) => {
  emu.admin.setClockSpeed(1000);
  const hook = await receiver();
  const local = (await api.call("POST", "/webhooks", { url: hook.url, events: ["cube.created"] })).body.webhook;
  const remote = (await api.call("POST", "/webhooks", { url: "https://hooks.example.com/cube", events: ["cube.created"] })).body.webhook;
  await api.createCube({ name: "hooked" });
  const [refused] = await waitFor(async () => {
    const list = (await api.call("GET", `/webhooks/${remote.id}/deliveries`)).body.deliveries;
    return list[0]?.status === "failed" ? list : undefined;
  });
  expect(refused).toMatchObject({
    event: "cube.created",
    status: "failed",
    attempts: 0,
    responseStatus: null,
    failureReason:
      "not delivered: the emulator delivers only to loopback addresses (start it with --deliver-anywhere): hooks.example.com is not a loopback address",
  });
  await waitFor(() => hook.received.includes("cube.created"), { message: "the loopback delivery" });
  const delivered = (await api.call("GET", `/webhooks/${local.id}/deliveries`)).body.deliveries;
  expect(delivered[0]).toMatchObject({ status: "delivered", attempts: 1 });
  expect(delivered[0]).not.toHaveProperty("failureReason");
});

describe("cubeform emulator --deliver-anywhere", () => {
  // http://0.0.0.0:PORT is not a loopback address by name, yet Linux connects it to the local
  // host: the receiver on 127.0.0.1 gets it, so the flag's effect is seen with loopback traffic only.
  async function deliveryTo0000(
    args: string[],
  ): Promise<{ printed: string; delivery: { status: string; failureReason?: string }; received: string[] }> {
    const hook = await receiver();
    const url = hook.url.replace("127.0.0.1", "0.0.0.0");
    const stdout = new PassThrough();
    let printed = "";
    stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    const stop = new AbortController();
    const running = main(["emulator", "--port", "0", "--api-key", "kro_deliver_anywhere_test", "--space", "spc_hooks", ...args], {
      stdout,
      stderr: new PassThrough(),
      env: {},
      signal: stop.signal,
    });
    try {
      const base = await waitFor(() => /listening on (\S+)/.exec(printed)?.[1], { message: "the emulator to start" });
      const api = new Api(base, "kro_deliver_anywhere_test", "spc_hooks");
      const webhook = (await api.call("POST", "/webhooks", { url, events: ["cube.created"] })).body.webhook;
      await api.createCube();
      const delivery = await waitFor(
        async () => {
          const [first] = (await api.call("GET", `/webhooks/${webhook.id}/deliveries`)).body.deliveries;
          return first?.status === "pending" ? undefined : first;
        },
        { message: "the delivery to be settled" },
      );
      return { printed, delivery, received: hook.received };
    } finally {
      stop.abort();
      await running;
    }
  }

  it("without the flag, nothing is sent to a non-loopback address; with it, the delivery is made", async () => {
    const plain = await deliveryTo0000([]);
    expect(plain.printed).toContain("Webhook deliveries: to loopback addresses only (--deliver-anywhere for any)");
    expect(plain.delivery).toMatchObject({ status: "failed", failureReason: expect.stringContaining("0.0.0.0 is not a loopback address") });
    expect(plain.received).toEqual([]);
    const anywhere = await deliveryTo0000(["--deliver-anywhere"]);
    expect(anywhere.printed).toContain("Webhook deliveries: to any address (--deliver-anywhere)");
    expect(anywhere.delivery).toMatchObject({ status: "delivered" });
    expect(anywhere.received).toEqual(["cube.created"]);
  });
});
