/**
 * The Webhook resource: an endpoint of the space, diffed by the engine (planWebhook). Any change replaces it (created first,
 * so no event is missed) with a new signing secret, returned once at create: an output the resource class marks secret.
 */
import type { CreateResult, DiffResult, ReadResult, UpdateResult } from "@pulumi/pulumi/dynamic/index.js";
import { createWebhookBody, ignoreNotFound, planWebhook, type DesiredWebhookSpec } from "../engine/index.js";
import type { Webhook } from "../schema/api.js";
import { userInputs } from "./check.js";
import { apiClient } from "./settings.js";
import type { WebhookInputs, WebhookOutputs } from "./types.js";
import { declaredOnly, str, type Props } from "./values.js";

function spec(props: Props): DesiredWebhookSpec {
  const inputs = userInputs(props) as unknown as WebhookInputs;
  return {
    url: inputs.url,
    events: [...inputs.events],
    secretFile: "",
    secretPath: "",
    ...declaredOnly({ description: inputs.description }),
  };
}

function liveFromOutputs(id: string, outs: Partial<WebhookOutputs>): Webhook {
  return {
    id,
    url: outs.url ?? "",
    events: outs.events ?? [],
    enabled: outs.enabled ?? true,
    description: outs.description ?? null,
    createdAt: outs.createdAt ?? "",
    updatedAt: outs.createdAt ?? "",
  };
}

function outputsOf(live: Webhook, secret: string | null): WebhookOutputs {
  return {
    webhookId: live.id,
    url: live.url,
    events: [...live.events],
    description: live.description ?? null,
    enabled: live.enabled,
    createdAt: live.createdAt,
    secret,
  };
}

export async function diffWebhook(id: string, olds: Props, news: Props): Promise<DiffResult> {
  const planned = planWebhook(spec(news), liveFromOutputs(id, olds as Partial<WebhookOutputs>));
  const change = planned.changes[0]!;
  if (change.action === "noop") return { changes: false };
  return { changes: true, replaces: [...new Set(change.changes.map((c) => c.path))], deleteBeforeReplace: false };
}

export async function createWebhook(props: Props): Promise<CreateResult> {
  const desired = spec(props);
  const created = await apiClient().createWebhook(createWebhookBody(desired));
  if (!created.id) throw new Error(`Creating the webhook endpoint ${desired.url} returned no id`);
  return { id: created.id, outs: outputsOf(created, created.secret) };
}

/** Refresh: the API never shows the secret again; the one in state is kept. */
export async function readWebhook(id: string, props: Props | undefined): Promise<ReadResult> {
  const live = await ignoreNotFound(apiClient().getWebhook(id));
  if (!live) return {};
  const outs = outputsOf(live, str(props?.secret) ?? null);
  return { id, props: outs, inputs: { url: outs.url, events: outs.events, ...declaredOnly({ description: outs.description }) } };
}

/** Never called for a real change (every change replaces). */
export async function updateWebhook(_id: string, olds: Props): Promise<UpdateResult> {
  return { outs: olds };
}

export async function deleteWebhook(id: string): Promise<void> {
  await ignoreNotFound(apiClient().deleteWebhook(id));
}
