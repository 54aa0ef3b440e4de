/** The X-Krova-Signature check of `watch --listen`, and the listener's duplicate and event handling. */
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startListener, type Listener } from "../../reconciler/watch/listener.js";
import { verifySignature } from "../../reconciler/watch/signature.js";

const SECRET = "whsec_test_secret";
const body = Buffer.from(JSON.stringify({ id: "evt_1", event: "cube.deleted", data: { id: "cube_1" } }));
const sign = (t: number, payload = body, secret = SECRET) => createHmac("sha256", secret).update(`${t}.`).update(payload).digest("hex");
const NOW = 1_800_000_000;

describe("verifySignature", () => {
  it("accepts a good signature, with fields in any order and unknown fields ignored", () => {
    expect(verifySignature(`t=${NOW},v1=${sign(NOW)}`, body, [SECRET], NOW)).toEqual({ ok: true });
    expect(verifySignature(`v0=abc,v1=${sign(NOW)},t=${NOW}`, body, ["other", SECRET], NOW + 300)).toEqual({ ok: true });
  });
  it("refuses a wrong secret, a changed body, a stale or future timestamp, a malformed header", () => {
    expect(verifySignature(`t=${NOW},v1=${sign(NOW, body, "whsec_other")}`, body, [SECRET], NOW)).toEqual({ ok: false, error: "invalid_signature" });
    expect(verifySignature(`t=${NOW},v1=${sign(NOW)}`, Buffer.from(`${body.toString()} `), [SECRET], NOW)).toEqual({ ok: false, error: "invalid_signature" });
    expect(verifySignature(`t=${NOW},v1=${sign(NOW)}`, body, [SECRET], NOW + 301)).toEqual({ ok: false, error: "timestamp_out_of_tolerance" });
    expect(verifySignature(`t=${NOW},v1=${sign(NOW)}`, body, [SECRET], NOW - 301)).toEqual({ ok: false, error: "timestamp_out_of_tolerance" });
    for (const header of [undefined, "", `v1=${sign(NOW)}`, `t=0${NOW},v1=${sign(NOW)}`, `t=${NOW}`, `t=${NOW},v1=xyz`, `sha256=${sign(NOW)}`]) {
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
    listener = await startListener({ host: "127.0.0.1", port: 0, secrets: async () => [SECRET], onEvent: (e, id) => events.push(`${e} ${id}`), onRefused: (r) => refused.push(r) });
    const post = (headers: Record<string, string>, payload = body) => fetch(listener!.url, { method: "POST", headers, body: payload }).then((r) => r.status);
    const t = Math.floor(Date.now() / 1000);
    const signed = { "x-krova-signature": `t=${t},v1=${sign(t)}`, "x-krova-event": "cube.deleted" };
    expect(await post({ ...signed, "x-krova-delivery": "dlv_1" })).toBe(200);
    expect(await post({ ...signed, "x-krova-delivery": "dlv_1" })).toBe(200);
    expect(await post({ ...signed, "x-krova-delivery": "dlv_2", "x-krova-event": "member.joined" })).toBe(200);
    expect(await post({ ...signed, "x-krova-signature": `t=${t},v1=${sign(t, body, "whsec_forged")}`, "x-krova-delivery": "dlv_3" })).toBe(401);
    expect(events).toEqual(["cube.deleted dlv_1"]);
    expect(refused).toEqual(["refused a delivery: invalid_signature"]);
  });
});
