/**
 * The Webhook resource: an endpoint of the space. Diff rules are the engine's (planWebhook): the
 * API has no PATCH, so any change replaces the endpoint (created first, so no event is missed)
 * and mints a new signing secret. The secret, returned once at create, is an output that the
 * resource class marks secret: the engine keeps it encrypted in state.
 */
import type { CreateResult, DiffResult, ReadResult, UpdateResult } from "@pulumi/pulumi/dynamic/index.js";
import { planWebhook, type DesiredWebhookSpec } from "../engine/index.js";
import type { Webhook } from "../schema/api.js";
import { userInputs } from "./check.js";
import { isNotFound } from "./errors.js";
import { apiClient } from "./settings.js";
import type { WebhookInputs, WebhookOutputs } from "./types.js";
import { declared, str, type Props } from "./values.js";

function spec(props: Props): DesiredWebhookSpec {
  const inputs = userInputs(props) as unknown as WebhookInputs;
  const result: DesiredWebhookSpec = { url: inputs.url, events: [...inputs.events], secretFile: "", secretPath: "" };
  const description = declared(inputs.description);
  if (description !== undefined) result.description = description;
  return result;
}

function liveFromOutputs(id: string, outs: Partial<WebhookOutputs>): Webhook {
  return { id, url: outs.url ?? "", events: outs.events ?? [], enabled: outs.enabled ?? true, description: outs.description ?? null, createdAt: outs.createdAt ?? "", updatedAt: outs.createdAt ?? "" };
}

function outputsOf(live: Webhook, secret: string | null): WebhookOutputs {
  return { webhookId: live.id, url: live.url, events: [...live.events], description: live.description ?? null, enabled: live.enabled, createdAt: live.createdAt, secret };
}

async function readLive(id: string): Promise<Webhook | undefined> {
  try {
    return await apiClient().getWebhook(id);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export async function diffWebhook(id: string, olds: Props, news: Props): Promise<DiffResult> {
  const planned = planWebhook(spec(news), liveFromOutputs(id, olds as Partial<WebhookOutputs>));
  const change = planned.changes[0]!;
  if (change.action === "noop") return { changes: false };
  return { changes: true, replaces: [...new Set(change.changes.map((c) => c.path))], deleteBeforeReplace: false };
}

export async function createWebhook(props: Props): Promise<CreateResult> {
  const desired = spec(props);
  const body: Parameters<ReturnType<typeof apiClient>["createWebhook"]>[0] = { url: desired.url, events: desired.events as never };
  if (desired.description !== undefined) body.description = desired.description;
  const created = await apiClient().createWebhook(body);
  if (!created.id) throw new Error(`Creating the webhook endpoint ${desired.url} returned no id`);
  return { id: created.id, outs: outputsOf(created, created.secret) };
}

/** Refresh: the API never shows the secret again; the one in state is kept. */
export async function readWebhook(id: string, props: Props | undefined): Promise<ReadResult> {
  const live = await readLive(id);
  if (!live) return {};
  const outs = outputsOf(live, str(props?.secret) ?? null);
  const inputs: Props = { url: outs.url, events: outs.events };
  if (outs.description !== null) inputs.description = outs.description;
  return { id, props: outs, inputs };
}

/** Never called for a real change (every change replaces). */
export async function updateWebhook(_id: string, olds: Props): Promise<UpdateResult> {
  return { outs: olds };
}

export async function deleteWebhook(id: string): Promise<void> {
  try {
    await apiClient().deleteWebhook(id);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
