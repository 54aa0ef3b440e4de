/**
 * Webhook deliveries: a signed JSON POST to each subscribed endpoint, any 2xx within 10 s a success, else up to 4
 * retries 60 s (emulated) apart. Loopback only unless deliverAnywhere: one elsewhere fails at once, nothing sent.
 */
import { createHmac } from "node:crypto";
import { DELAYS } from "../core/clock.js";
import type { Core } from "../core/core.js";
import { isoAt, newId } from "../core/ids.js";
import { deliveryRefusal } from "../core/loopback.js";
import { defineJob } from "../core/resource.js";
import type { DeliveryRecord, WebhookRecord } from "../core/state.js";

export const MAX_ATTEMPTS = 5;
export const DELIVERY_TIMEOUT_MS = 10_000;

/** An event of the space becomes one pending delivery per enabled endpoint subscribed to it. */
export function deliverEvent(core: Core, spaceId: string, event: string, data: unknown, at: number): void {
  const targets = Object.values(core.data.webhooks).filter((w) => w.spaceId === spaceId && w.enabled && w.events.includes(event));
  if (targets.length === 0) return;
  const payload = JSON.stringify({ id: newId("evt", 8), event, createdAt: isoAt(at), spaceId, data });
  for (const webhook of targets) {
    const delivery: DeliveryRecord = {
      id: newId("dlv", 8),
      spaceId,
      webhookId: webhook.id,
      event,
      status: "pending",
      attempts: 0,
      lastAttemptAt: null,
      responseStatus: null,
      createdAt: isoAt(at),
      payload,
    };
    core.data.deliveries[delivery.id] = delivery;
    deliveryAttemptJob.schedule(core, { deliveryId: delivery.id }, at);
  }
}

/** Stripe-style signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, `${t}.${body}`)>. */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${v1}`;
}

/** One attempt; a failure schedules the next one (60 s emulated) until MAX_ATTEMPTS. */
export const deliveryAttemptJob = defineJob<{ deliveryId: string }>("delivery-attempt", (core, job) => {
  const delivery = core.data.deliveries[job.deliveryId];
  const webhook = delivery && core.data.webhooks[delivery.webhookId];
  if (!delivery || !webhook || delivery.status !== "pending") return;
  void deliver(core, webhook, delivery, job.at);
});

async function deliver(core: Core, webhook: WebhookRecord, delivery: DeliveryRecord, at: number): Promise<void> {
  const refusal = await deliveryRefusal(webhook.url, { deliverAnywhere: core.deliverAnywhere });
  const status = refusal === undefined ? await attempt(core, webhook, delivery) : null;
  // Nothing is recorded once the emulator closed, or the delivery went (its webhook deleted) meanwhile.
  const current = core.data.deliveries[delivery.id];
  if (core.closingSignal.aborted || !current) return;
  if (refusal === undefined) record(core, current, status, at);
  else {
    // No attempt is made (none is counted) and none will be: retrying cannot change the address.
    current.status = "failed";
    current.failureReason = refusal;
  }
  core.save();
}

async function attempt(core: Core, webhook: WebhookRecord, delivery: DeliveryRecord): Promise<number | null> {
  // The signature timestamp is wall-clock time: receivers check it against their own clock.
  const t = Math.floor(Date.now() / 1000);
  try {
    const response = await fetch(webhook.url, {
      method: "POST",
      redirect: "manual",
      // Attempts in flight are aborted when the emulator closes.
      signal: AbortSignal.any([AbortSignal.timeout(DELIVERY_TIMEOUT_MS), core.closingSignal]),
      headers: {
        "content-type": "application/json",
        "user-agent": "cube-emulator-webhooks/1",
        "x-krova-signature": signatureHeader(webhook.secret, delivery.payload, t),
        "x-krova-event": delivery.event,
        "x-krova-delivery": delivery.id,
      },
      body: delivery.payload,
    });
    await response.body?.cancel();
    return response.status;
  } catch {
    return null;
  }
}

function record(core: Core, delivery: DeliveryRecord, status: number | null, attemptAt: number): void {
  delivery.attempts++;
  delivery.lastAttemptAt = isoAt(attemptAt);
  delivery.responseStatus = status;
  if (status !== null && status >= 200 && status < 300) delivery.status = "delivered";
  else if (delivery.attempts >= MAX_ATTEMPTS) delivery.status = "failed";
  else deliveryAttemptJob.schedule(core, { deliveryId: delivery.id }, attemptAt + DELAYS.webhookRetry);
}

/** After a restart, a delivery whose attempt was in flight has no job left: schedule one. */
export function resumePendingDeliveries(core: Core): void {
  const scheduled = new Set(core.data.jobs.flatMap((job) => (job.kind === deliveryAttemptJob.kind ? [job.deliveryId] : [])));
  for (const delivery of Object.values(core.data.deliveries)) {
    if (delivery.status === "pending" && !scheduled.has(delivery.id))
      deliveryAttemptJob.schedule(core, { deliveryId: delivery.id }, core.now());
  }
}
