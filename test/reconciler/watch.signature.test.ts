/** The X-Krova-Signature check of `watch --listen`, and the listener's duplicate and event handling. */
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startListener, type Listener } from "../../reconciler/watch/listener.js";
import { Backoff } from "../../reconciler/watch/backoff.js";
import { runLoop } from "../../reconciler/watch/loop.js";
import { AcceptedSignatures } from "../../reconciler/watch/replays.js";
import { verifySignature } from "../../reconciler/watch/signature.js";
import { Wake } from "../../reconciler/watch/wake.js";
import { waitFor } from "../support/wait.js";

const SECRET = "whsec_test_secret";
const body = Buffer.from(JSON.stringify({ id: "evt_1", event: "cube.deleted", data: { id: "cube_1" } }));
const sign = (t: number, payload: Buffer = body, secret = SECRET) =>
  createHmac("sha256", secret).update(`${t}.`).update(payload).digest("hex");
const NOW = 1_800_000_000;

describe("verifySignature", () => {
  it("accepts a good signature, with fields in any order and unknown fields ignored", () => {
    expect(verifySignature(`t=${NOW},v1=${sign(NOW)}`, body, [SECRET], NOW)).toEqual({ ok: true, timestamp: NOW });
    expect(verifySignature(`v0=abc,v1=${sign(NOW)},t=${NOW}`, body, ["other", SECRET], NOW + 300)).toEqual({ ok: true, timestamp: NOW });
  });
  it("refuses a wrong secret, a changed body, a stale or future timestamp, a malformed header", () => {
    expect(verifySignature(`t=${NOW},v1=${sign(NOW, body, "whsec_other")}`, body, [SECRET], NOW)).toEqual({
      ok: false,
      error: "invalid_signature",
    });
    expect(verifySignature(`t=${NOW},v1=${sign(NOW)}`, Buffer.from(`${body.toString()} `), [SECRET], NOW)).toEqual({
      ok: false,
      error: "invalid_signature",
    });
    expect(verifySignature(`t=${NOW},v1=${sign(NOW)}`, body, [SECRET], NOW + 301)).toEqual({
      ok: false,
      error: "timestamp_out_of_tolerance",
    });
    expect(verifySignature(`t=${NOW},v1=${sign(NOW)}`, body, [SECRET], NOW - 301)).toEqual({
      ok: false,
      error: "timestamp_out_of_tolerance",
    });
    for (const header of [
      undefined,
      "",
      `v1=${sign(NOW)}`,
      `t=0${NOW},v1=${sign(NOW)}`,
      `t=${NOW}`,
      `t=${NOW},v1=xyz`,
      `sha256=${sign(NOW)}`,
    ]) {
      expect(verifySignature(header, body, [SECRET], NOW), String(header)).toEqual({ ok: false, error: "malformed_header" });
    }
  });
});

describe("the listener", () => {
  let listener: Listener | undefined;
  afterEach(async () => listener?.close());

  it("starts a round per verified cube/domain/port event, drops duplicate deliveries and refuses bad signatures", async () => {
    const events: string[] = [];
    const refused: string[] = [];
    listener = await startListener({
      host: "127.0.0.1",
      port: 0,
      secrets: () => [SECRET],
      onEvent: (e, id) => events.push(`${e} ${id}`),
      onRefused: (r) => refused.push(r),
    });
    const post = (headers: Record<string, string>, payload = body) =>
      fetch(listener!.url, { method: "POST", headers, body: payload }).then((r) => r.status);
    const t = Math.floor(Date.now() / 1000);
    const signed = { "x-krova-signature": `t=${t},v1=${sign(t)}`, "x-krova-event": "cube.deleted" };
    expect(await post({ ...signed, "x-krova-delivery": "dlv_1" })).toBe(200);
    expect(await post({ ...signed, "x-krova-delivery": "dlv_1" })).toBe(200);
    expect(await post({ ...signed, "x-krova-delivery": "dlv_2", "x-krova-event": "member.joined" })).toBe(200);
    expect(await post({ ...signed, "x-krova-signature": `t=${t},v1=${sign(t, body, "whsec_forged")}`, "x-krova-delivery": "dlv_3" })).toBe(
      401,
    );
    expect(events).toEqual(["cube.deleted dlv_1"]);
    expect(refused).toEqual(["refused a delivery: invalid_signature"]);
  });
});

/** The listener feeding the watch loop's Wake, with a round that the test can hold open. */
async function listeningLoop() {
  const wake = new Wake();
  const controller = new AbortController();
  const stats = { started: 0, running: 0, maxRunning: 0, events: 0 };
  let hold: Promise<void> = Promise.resolve();
  const listener = await startListener({
    host: "127.0.0.1",
    port: 0,
    secrets: () => [SECRET],
    onEvent: () => (stats.events++, wake.fire()),
    onRefused: () => undefined,
  });
  const loop = runLoop({
    reconcile: async () => {
      stats.started++;
      stats.maxRunning = Math.max(stats.maxRunning, ++stats.running);
      await hold;
      stats.running--;
      return {};
    },
    wait: (ms, signal) => wake.wait(ms, signal),
    intervalMs: 3_600_000,
    backoff: new Backoff({ initialMs: 1000, maxMs: 1000 }),
    signal: controller.signal,
    once: false,
    onFailure: () => undefined,
  });
  const post = (payload: Buffer, deliveryId: string, t = Math.floor(Date.now() / 1000)) =>
    fetch(listener.url, {
      method: "POST",
      headers: { "x-krova-signature": `t=${t},v1=${sign(t, payload)}`, "x-krova-event": "cube.deleted", "x-krova-delivery": deliveryId },
      body: payload,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { duplicate?: boolean } }));
  /** Resolves once no round runs and none is about to start (a pending wake starts one within microtasks). */
  const idle = async () => {
    await waitFor(() => stats.running === 0, { message: "the round to end" });
    await new Promise((resolve) => setImmediate(resolve));
    return stats.running === 0;
  };
  const holdRounds = () => {
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    return () => {
      hold = Promise.resolve();
      release();
    };
  };
  const stop = async () => {
    controller.abort();
    wake.fire();
    await loop;
    await listener.close();
  };
  return { stats, post, idle, holdRounds, stop };
}

describe("replays and bursts (issue 20 item 5)", () => {
  it("100 replays of one captured delivery under new delivery ids start no round beyond the original's", async () => {
    const run = await listeningLoop();
    try {
      await waitFor(() => run.stats.started === 1 && run.idle(), { message: "the first round" });
      const t = Math.floor(Date.now() / 1000);
      expect(await run.post(body, "dlv_original", t)).toEqual({ status: 200, body: { received: true } });
      await waitFor(() => run.stats.started === 2 && run.idle(), { message: "the round of the original delivery" });
      const replies = [];
      for (let i = 0; i < 100; i++) replies.push(await run.post(body, `dlv_replay_${i}`, t));
      expect(await run.idle()).toBe(true);
      console.log(
        `100 replays of one captured delivery: ${run.stats.started - 2} rounds started beyond the original's (${run.stats.events} events accepted)`,
      );
      expect(replies.every((r) => r.status === 200 && r.body.duplicate === true)).toBe(true);
      expect(run.stats.events).toBe(1);
      expect(run.stats.started).toBe(2);
    } finally {
      await run.stop();
    }
  });

  it("a burst of 100 distinct signed deliveries: at most one round runs and one waits", async () => {
    const run = await listeningLoop();
    try {
      await waitFor(() => run.stats.started === 1 && run.idle(), { message: "the first round" });
      const release = run.holdRounds();
      const first = await run.post(Buffer.from(JSON.stringify({ id: "evt_first", event: "cube.deleted" })), "dlv_first");
      expect(first.status).toBe(200);
      await waitFor(() => run.stats.running === 1, { message: "a round to start on the first event" });
      const burst = await Promise.all(
        Array.from({ length: 100 }, (_, i) => run.post(Buffer.from(JSON.stringify({ id: `evt_${i}`, event: "cube.deleted" })), `dlv_${i}`)),
      );
      expect(burst.every((r) => r.status === 200 && r.body.duplicate === undefined)).toBe(true);
      release();
      expect(await run.idle()).toBe(true);
      console.log(
        `burst of 100 distinct deliveries during a round: ${run.stats.events} events, ${run.stats.started - 2} rounds after the running one, at most ${run.stats.maxRunning} running at once`,
      );
      expect(run.stats.events).toBe(101);
      expect(run.stats.maxRunning).toBe(1);
      expect(run.stats.started).toBe(3);
    } finally {
      await run.stop();
    }
  });
});

describe("AcceptedSignatures", () => {
  it("recognises a timestamp and body accepted before, forgets it once out of tolerance, and stays within its cap", () => {
    const accepted = new AcceptedSignatures(100);
    expect(accepted.accept(NOW, body, NOW)).toBe(true);
    expect(accepted.accept(NOW, body, NOW + 300)).toBe(false);
    expect(accepted.accept(NOW + 1, body, NOW + 1)).toBe(true);
    expect(accepted.accept(NOW, Buffer.from(`${body.toString()} `), NOW)).toBe(true);
    for (let i = 0; i < 1000; i++) accepted.accept(NOW + 1000 + i, body, NOW + 1000 + i);
    expect(accepted.size).toBeLessThanOrEqual(100);
    expect(accepted.accept(NOW + 1999, body, NOW + 1999)).toBe(false);
  });
});

describe("--listen on a busy port (issue 22 item 9)", () => {
  it("is one line naming the address and what to do, not a raw EADDRINUSE", async () => {
    const busy = await startListener({
      host: "127.0.0.1",
      port: 0,
      secrets: () => [SECRET],
      onEvent: () => undefined,
      onRefused: () => undefined,
    });
    try {
      const port = Number(new URL(busy.url).port);
      const second = startListener({
        host: "127.0.0.1",
        port,
        secrets: () => [SECRET],
        onEvent: () => undefined,
        onRefused: () => undefined,
      });
      await expect(second).rejects.toMatchObject({
        code: "listen_failed",
        message: `cannot listen for webhook deliveries on 127.0.0.1:${port}: the port is in use (by another process; choose another with --listen [HOST:]PORT)`,
      });
    } finally {
      await busy.close();
    }
  });
});
