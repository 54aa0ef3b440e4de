/** Webhook endpoint routes. The secret is returned once, in the create response. */
import { randomBytes } from "node:crypto";
import { CreateWebhookRequest } from "../schema/api.js";
import type { RouteContext } from "./context.js";
import { intQuery, json, notFound, parseWith, SUCCESS, type ApiResponse } from "./http.js";
import { isoAt, newId } from "./ids.js";
import type { WebhookRecord } from "./state.js";
import { deliveryView, webhookView } from "./views.js";

const DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;

function requireWebhook(ctx: RouteContext): WebhookRecord {
  const webhook = ctx.core.data.webhooks[ctx.params.endpointId ?? ""];
  if (!webhook || webhook.spaceId !== ctx.auth.spaceId) throw notFound("Webhook");
  return webhook;
}

export function listWebhooks(ctx: RouteContext): ApiResponse {
  const webhooks = Object.values(ctx.core.data.webhooks).filter((w) => w.spaceId === ctx.auth.spaceId);
  return json(200, { webhooks: webhooks.map((w) => webhookView(w)) });
}

export function createWebhook(ctx: RouteContext): ApiResponse {
  const body = parseWith(CreateWebhookRequest, ctx.body);
  const at = isoAt(ctx.now);
  const webhook: WebhookRecord = {
    id: newId("wh"),
    spaceId: ctx.auth.spaceId,
    url: body.url,
    events: [...new Set(body.events)],
    enabled: true,
    description: body.description ?? null,
    secret: `whsec_${randomBytes(24).toString("hex")}`,
    createdAt: at,
    updatedAt: at,
  };
  ctx.core.data.webhooks[webhook.id] = webhook;
  return json(201, { webhook: webhookView(webhook, { description: true, secret: true }) });
}

export function getWebhook(ctx: RouteContext): ApiResponse {
  return json(200, { webhook: webhookView(requireWebhook(ctx), { description: true }) });
}

export function deleteWebhook(ctx: RouteContext): ApiResponse {
  const webhook = requireWebhook(ctx);
  delete ctx.core.data.webhooks[webhook.id];
  const deliveries = ctx.core.data.deliveries;
  for (const [id, delivery] of Object.entries(deliveries)) if (delivery.webhookId === webhook.id) delete deliveries[id];
  return json(200, SUCCESS);
}

/** Newest first, last 30 days, ?limit 1..100 (default 50). */
export function listDeliveries(ctx: RouteContext): ApiResponse {
  const limit = intQuery(ctx.query, "limit", 50, 1, 100);
  const webhook = requireWebhook(ctx);
  const since = ctx.now - DELIVERY_RETENTION_MS;
  const deliveries = Object.values(ctx.core.data.deliveries)
    .filter((d) => d.webhookId === webhook.id && Date.parse(d.createdAt) >= since)
    .reverse()
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
    .slice(0, limit);
  return json(200, { deliveries: deliveries.map(deliveryView) });
}
