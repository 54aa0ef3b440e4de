/** Webhook endpoints and their deliveries of the space's events. The secret is returned once, in the create response. */
import { randomBytes } from "node:crypto";
import { CreateWebhookRequest } from "../../schema/api.js";
import { pathRow, type RouteContext } from "../core/context.js";
import { intQuery, json, parseWith, SUCCESS, type ApiResponse } from "../core/http.js";
import { isoAt, newId } from "../core/ids.js";
import { intQueryParam, listOf, object, ref, single, SUCCESS_SCHEMA } from "../core/openapi-doc.js";
import { taggedRoutes, type Resource } from "../core/resource.js";
import type { WebhookRecord } from "../core/state.js";
import { deliverEvent, deliveryAttemptJob, resumePendingDeliveries } from "./deliveries.js";
import { deliveryView, newestFirst, webhookView } from "./views.js";

const DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;

function requireWebhook(ctx: RouteContext): WebhookRecord {
  return pathRow(ctx, ctx.core.data.webhooks, "endpointId", "Webhook");
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
  const deliveries = Object.values(ctx.core.data.deliveries).filter((d) => d.webhookId === webhook.id && Date.parse(d.createdAt) >= since);
  return json(200, { deliveries: newestFirst(deliveries).slice(0, limit).map(deliveryView) });
}

const WEBHOOKS = "/spaces/{spaceId}/webhooks";
const WEBHOOK = `${WEBHOOKS}/{endpointId}`;
const CREATED = object({ webhook: { allOf: [ref("Webhook"), object({ secret: { type: "string" } })] } });

export const webhooksResource: Resource = {
  routes: taggedRoutes("Webhooks", [
    [["GET", WEBHOOKS, listWebhooks], "List webhook endpoints", [200, listOf("webhooks", "Webhook")]],
    [
      ["POST", WEBHOOKS, createWebhook],
      "Create a webhook endpoint (signing secret returned once)",
      [201, CREATED],
      [400],
      { body: CreateWebhookRequest },
    ],
    [["GET", WEBHOOK, getWebhook], "Get a webhook (no secret)", [200, single("webhook", "Webhook")], [404]],
    [["DELETE", WEBHOOK, deleteWebhook], "Delete a webhook (cascades deliveries)", [200, SUCCESS_SCHEMA], [404]],
    [
      ["GET", `${WEBHOOK}/deliveries`, listDeliveries],
      "Webhook delivery history, newest first",
      [200, listOf("deliveries", "WebhookDelivery")],
      [400, 404],
      { query: [intQueryParam("limit", 1, 100, "How many deliveries (default 50).")] },
    ],
  ]),
  jobs: [deliveryAttemptJob],
  start(core) {
    core.events.subscribe((spaceId, event, data, at) => deliverEvent(core, spaceId, event, data, at));
    resumePendingDeliveries(core);
  },
};
