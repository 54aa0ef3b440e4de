/**
 * Issue 35 item 3: deliveries to a receiver on 127.0.0.1 (real HTTP). Signed so the receiver verifies them with the secret (the scheme of
 * the service's webhooks, watch/signature.ts); retried on 500 and 429 (Retry-After honoured) and on a receiver that is down; bounded; never
 * waited for by the sender; the secret, the url's key and the API key never in a body or a log line.
 */
import { createServer } from "node:net";
import { describe, expect, test } from "vitest";
import { newEvent, type NotifyEvent } from "../../reconciler/notify/event.js";
import { Notifier } from "../../reconciler/notify/index.js";
import { slackBody } from "../../reconciler/notify/slack.js";
import { RunSecrets } from "../../reconciler/redact.js";
import type { CliIo } from "../../reconciler/io.js";
import { startReceiver } from "../support/notify-receiver.js";
import { waitFor } from "../support/wait.js";

const SECRET = "notify-secret-0123456789abcdef";
const API_KEY = "ck_live_notify_test_key_0123456789";
const FAST = { baseMs: 20, attempts: 4, maxWaitMs: 2_000 };

function event(summary = "2 resources differ", details: Record<string, unknown> = {}): NotifyEvent {
  return newEvent(
    "drift.detected",
    { command: "watch", source: { kind: "files", files: ["cubeform.yaml"] }, space: "spc_1", revision: null },
    summary,
    details,
  );
}

function counters() {
  const c = { sent: 0, failed: 0, dropped: 0, waiting: 0 };
  return {
    c,
    counters: { sent: () => c.sent++, failed: () => c.failed++, dropped: () => c.dropped++, waiting: (n: number) => (c.waiting = n) },
  };
}

function testIo(): { io: CliIo; log: string[] } {
  const secrets = new RunSecrets();
  secrets.add(API_KEY);
  const log: string[] = [];
  const sink = { write: (text: string) => log.push(text) } as unknown as NodeJS.WritableStream;
  return { io: { stdout: sink, stderr: sink, env: { CUBE_API_KEY: API_KEY }, secrets }, log };
}

describe("notification deliveries", () => {
  test("a JSON event is signed: the receiver verifies it with the secret, and not with another; a tampered body fails", async () => {
    const receiver = await startReceiver();
    const { io } = testIo();
    io.secrets?.add(SECRET);
    const notifier = new Notifier({ targets: [{ url: new URL(receiver.url), format: "json" }], secret: SECRET }, io);
    const sent = event();
    notifier.send(sent);
    expect(await notifier.close(10_000)).toBe(0);
    const [got] = receiver.accepted();
    expect(got?.body).toEqual(JSON.parse(JSON.stringify(sent)));
    expect(got?.body).toMatchObject({
      version: 1,
      type: "drift.detected",
      space: "spc_1",
      revision: null,
      source: { kind: "files" },
      command: "watch",
    });
    expect(got?.headers["x-cubeform-event"]).toBe("drift.detected");
    expect(got?.headers["x-cubeform-delivery"]).toBe(sent.id);
    expect(got?.headers["x-cubeform-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(receiver.verifies(got!, SECRET)).toBe(true);
    expect(receiver.verifies(got!, "another-secret-0123456789")).toBe(false);
    expect(receiver.verifies({ ...got!, raw: Buffer.from(got!.raw.toString().replace("spc_1", "spc_2")) }, SECRET)).toBe(false);
  });

  test("slack format: {text, blocks} with mrkdwn escaped, as an incoming webhook takes it", async () => {
    const receiver = await startReceiver();
    const { io } = testIo();
    const notifier = new Notifier({ targets: [{ url: new URL(receiver.url), format: "slack" }] }, io);
    notifier.send(event("<b>&</b>", { resources: [{ address: "cube/web", action: "update", fields: [{ path: "power" }] }] }));
    await notifier.close(10_000);
    const body = receiver.accepted()[0]?.body as { text: string; blocks: { type: string; text?: { type: string; text: string } }[] };
    expect(Object.keys(body).sort()).toEqual(["blocks", "text"]);
    expect(body.text).toContain("*drift.detected* in space `spc_1`: &lt;b&gt;&amp;&lt;/b&gt;");
    expect(body.text).toContain("• cube/web: update (power)");
    expect(body.blocks[0]).toEqual({ type: "section", text: { type: "mrkdwn", text: body.text } });
    expect(body.blocks[1]?.type).toBe("context");
    expect(receiver.accepted()[0]?.headers["x-cubeform-signature"], "no secret, no signature").toBeUndefined();
  });

  test("a 500 and a 429 (Retry-After: 1) are retried: delivered once the receiver accepts, each failure counted", async () => {
    const receiver = await startReceiver();
    receiver.answer = (_r, i) => (i === 0 ? { status: 500 } : i === 1 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 });
    const { io } = testIo();
    const { c, counters: count } = counters();
    const notifier = new Notifier({ targets: [{ url: new URL(receiver.url), format: "json" }] }, io, count, {
      retry: FAST,
      log: () => undefined,
    });
    notifier.send(event());
    await notifier.close(20_000);
    expect(receiver.all).toHaveLength(3);
    expect(receiver.all[2]!.at - receiver.all[1]!.at, "Retry-After: 1 is honoured").toBeGreaterThanOrEqual(950);
    expect(new Set(receiver.all.map((r) => r.body.id)).size, "one event id across its tries").toBe(1);
    expect(c).toEqual({ sent: 1, failed: 2, dropped: 0, waiting: 0 });
  });

  test("a receiver that is down: send() returns at once; retries are bounded, then the event is dropped and counted; a 400 is not retried", async () => {
    const port = await freePort();
    const { io, log } = testIo();
    const { c, counters: count } = counters();
    const notifier = new Notifier({ targets: [{ url: new URL(`http://127.0.0.1:${port}/x`), format: "json" }] }, io, count, {
      retry: FAST,
      log: (line) => log.push(line),
    });
    const started = performance.now();
    for (let i = 0; i < 3; i++) notifier.send(event());
    expect(performance.now() - started, "queued, not sent inline").toBeLessThan(1_000);
    await waitFor(() => c.dropped === 3, { timeoutMs: 20_000, message: "all three given up" });
    expect(c.failed).toBe(3 * FAST.attempts);
    expect(c.sent).toBe(0);
    await notifier.close(1_000);

    const refusing = await startReceiver();
    refusing.answer = () => ({ status: 400 });
    const second = counters();
    const other = new Notifier({ targets: [{ url: new URL(refusing.url), format: "json" }] }, io, second.counters, {
      retry: FAST,
      log: () => undefined,
    });
    other.send(event());
    await other.close(10_000);
    expect(refusing.all).toHaveLength(1);
    expect(second.c).toMatchObject({ sent: 0, failed: 1, dropped: 1 });
  });

  test("the queue is bounded: while a receiver hangs, the oldest waiting events are dropped and counted; close() gives up at its deadline", async () => {
    let release: () => void = () => undefined;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const { io } = testIo();
    const { c, counters: count } = counters();
    const notifier = new Notifier({ targets: [{ url: new URL("http://127.0.0.1:9/never"), format: "json" }] }, io, count, {
      retry: FAST,
      log: () => undefined,
      post: async () => {
        await hung;
        return { status: 200 };
      },
    });
    for (let i = 0; i < 150; i++) notifier.send(event(`event ${i}`));
    expect(c.dropped).toBe(49);
    expect(c.waiting).toBe(101);
    const left = await notifier.close(100);
    expect(left).toBe(101);
    release();
  });

  test("the secret, the url (a Slack url's path is its key) and the API key appear in no body and no log line", async () => {
    const receiver = await startReceiver();
    receiver.answer = (_r, i) => (i === 0 ? { status: 500 } : { status: 200 });
    const { io, log } = testIo();
    io.secrets?.add(SECRET, receiver.url);
    const lines: string[] = [];
    const notifier = new Notifier({ targets: [{ url: new URL(receiver.url), format: "json" }], secret: SECRET }, io, undefined, {
      retry: FAST,
    });
    notifier.send(event(`failed: ${API_KEY} rejected`, { error: `key ${API_KEY} at ${receiver.url}` }));
    await notifier.close(10_000);
    expect(receiver.accepted()).toHaveLength(1);
    const everything = [...receiver.all.map((r) => r.raw.toString() + JSON.stringify(r.headers)), ...log, ...lines].join("\n");
    expect(log.join("")).toContain("notify http://127.0.0.1:");
    for (const secret of [SECRET, API_KEY, receiver.url, new URL(receiver.url).pathname]) expect(everything).not.toContain(secret);
  });

  test("slackBody caps its text (a section takes 3,000 characters)", () => {
    const many = Array.from({ length: 200 }, (_, i) => ({ address: `cube/${"x".repeat(50)}-${i}`, action: "update" }));
    const body = slackBody(event("many", { resources: many }));
    expect(body.text.length).toBeLessThanOrEqual(3000);
    expect(body.text).toContain("…and 185 more");
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
