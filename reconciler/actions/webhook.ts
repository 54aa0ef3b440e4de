/** `cubeform webhook list|deliveries`: the space's webhook endpoints and one's delivery log, by url or id. Secrets never appear. */
import type { CubeApi } from "../../client/api.js";
import type { Webhook, WebhookDelivery } from "../../schema/api.js";
import { CliError } from "../errors.js";
import type { CliIo } from "../io.js";
import { orDash, printJson, say, withApi, type Day2Context } from "../session/day2.js";
import { table } from "../render/table.js";

export interface DeliveriesContext extends Day2Context {
  webhook: string;
  limit: number;
}

async function findWebhook(client: CubeApi, ref: string): Promise<Webhook> {
  const webhooks = await client.listWebhooks();
  const byUrl = webhooks.filter((w) => w.url === ref);
  if (byUrl.length > 1)
    throw new CliError(
      "ambiguous_webhook",
      `${byUrl.length} webhook endpoints have the url ${ref} (${byUrl.map((w) => w.id).join(", ")}); name one by its id`,
    );
  const found = byUrl[0] ?? webhooks.find((w) => w.id === ref);
  if (found === undefined)
    throw new CliError(
      "webhook_not_found",
      `no webhook endpoint has the url (or id) "${ref}" in this space; \`cubeform webhook list\` shows them`,
    );
  return found;
}

export async function runWebhookList(ctx: Day2Context, io: CliIo): Promise<number> {
  const webhooks = await withApi(ctx, io, (client) => client.listWebhooks());
  if (ctx.format === "json") printJson(io, webhooks);
  else if (webhooks.length === 0) say(io, ctx, "No webhook endpoints in this space.");
  else
    io.stdout.write(
      table(
        ["URL", "ID", "ENABLED", "EVENTS"],
        webhooks.map((w) => [w.url, w.id, w.enabled ? "yes" : "no", [...w.events].sort().join(",")]),
      ),
    );
  return 0;
}

/** What the last attempt got: an HTTP status, or no answer at all; or why none was made. */
function lastError(delivery: WebhookDelivery): string | null {
  if (delivery.failureReason !== undefined) return delivery.failureReason;
  if (delivery.status === "delivered" || delivery.attempts === 0) return null;
  return delivery.responseStatus === null ? "no response (connection failed or timed out)" : `HTTP ${delivery.responseStatus}`;
}

export async function runWebhookDeliveries(ctx: DeliveriesContext, io: CliIo): Promise<number> {
  const { webhook, deliveries } = await withApi(ctx, io, async (client) => {
    const found = await findWebhook(client, ctx.webhook);
    return { webhook: found, deliveries: await client.listWebhookDeliveries(found.id, ctx.limit) };
  });
  const rows = deliveries.map((d) => [
    d.createdAt,
    d.event,
    d.status,
    String(d.attempts),
    orDash(d.lastAttemptAt),
    orDash(lastError(d)),
    d.id,
  ]);
  if (ctx.format === "json")
    printJson(io, {
      webhook: { id: webhook.id, url: webhook.url, enabled: webhook.enabled },
      deliveries: deliveries.map((d) => ({ ...d, lastError: lastError(d) })),
    });
  else if (deliveries.length === 0) say(io, ctx, `No deliveries to ${webhook.url} (${webhook.id}) in the last 30 days.`);
  else io.stdout.write(table(["CREATED", "EVENT", "STATUS", "ATTEMPTS", "LAST ATTEMPT", "LAST ERROR", "ID"], rows));
  return 0;
}
