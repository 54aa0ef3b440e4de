/**
 * Diff rules of the space's webhook endpoints (identity: the url). The API has no PATCH: any difference (events, a declared description, disabled in the
 * dashboard) replaces the endpoint, deleting first, with a new signing secret. Endpoints the file does not declare are reported, and deleted only when pruning.
 */
import type { CreateWebhookRequest, Webhook } from "../schema/api.js";
import { webhookAddress } from "./address.js";
import { fieldChange, viewFields, type View } from "./change.js";
import { sameSet, sortedOrNull } from "./compare.js";
import type { DesiredWebhookSpec, FieldChange, ProjectedWebhook, ResourceChange, Step } from "./types.js";

export type WebhookPlan = { changes: ResourceChange[]; steps: Step[] };

/** Webhooks belong to the space, not to a cube: their changes carry no cube name. */
const NO_CUBE = "";

/** Also the endpoint as a plan's prior state projects it. */
export function liveWebhookView(live: Webhook): ProjectedWebhook {
  return {
    id: live.id,
    url: live.url,
    events: sortedOrNull(live.events) ?? [],
    description: live.description ?? null,
    enabled: live.enabled,
  };
}

export function desiredWebhookView(spec: DesiredWebhookSpec, live?: Webhook): View {
  return {
    id: null,
    url: spec.url,
    events: sortedOrNull(spec.events) ?? [],
    description: spec.description ?? live?.description ?? null,
    enabled: true,
    secretFile: spec.secretFile,
  };
}

export function webhookFieldChanges(spec: DesiredWebhookSpec, live: Webhook): FieldChange[] {
  const changes: FieldChange[] = [];
  if (!sameSet(live.events, spec.events))
    changes.push(fieldChange("events", sortedOrNull(live.events) ?? [], sortedOrNull(spec.events) ?? [], true));
  if (spec.description !== undefined && (live.description ?? "") !== spec.description)
    changes.push(fieldChange("description", live.description, spec.description, true));
  if (!live.enabled) changes.push(fieldChange("enabled", false, true, true));
  return changes;
}

export function createWebhookBody(spec: DesiredWebhookSpec): CreateWebhookRequest {
  const body: CreateWebhookRequest = { url: spec.url, events: [...spec.events] as CreateWebhookRequest["events"] };
  if (spec.description !== undefined) body.description = spec.description;
  return body;
}

function createStep(spec: DesiredWebhookSpec): Step {
  return {
    op: "create-webhook",
    address: webhookAddress(spec.url),
    body: createWebhookBody(spec),
    secretFile: spec.secretFile,
    secretPath: spec.secretPath,
  };
}

const deleteStep = (live: Webhook): Step => ({ op: "delete-webhook", address: webhookAddress(live.url), webhookId: live.id });

/** One declared endpoint against the live one of its url (undefined: none). */
export function planWebhook(spec: DesiredWebhookSpec, live: Webhook | undefined): WebhookPlan {
  const base = { address: webhookAddress(spec.url), kind: "webhook" as const, cubeName: NO_CUBE, id: live?.id ?? null };
  if (!live) {
    const after = desiredWebhookView(spec);
    return {
      changes: [{ ...base, action: "create", before: null, after, changes: viewFields(after, "created") }],
      steps: [createStep(spec)],
    };
  }
  const before = liveWebhookView(live);
  const changes = webhookFieldChanges(spec, live);
  if (changes.length === 0) return { changes: [{ ...base, action: "noop", before, after: before, changes }], steps: [] };
  return {
    changes: [{ ...base, action: "delete-then-create", before, after: desiredWebhookView(spec, live), changes }],
    steps: [deleteStep(live), createStep(spec)],
  };
}

/** A live endpoint nothing declares (or a second one of a declared url): reported; deleted when pruning. */
function planUndeclared(live: Webhook, prune: boolean): WebhookPlan {
  const before = liveWebhookView(live);
  const base = {
    address: `${webhookAddress(live.url)}[${live.id}]`,
    kind: "webhook" as const,
    cubeName: NO_CUBE,
    id: live.id,
    before,
    unmanaged: true,
  };
  if (!prune) return { changes: [{ ...base, action: "noop", after: before, changes: [] }], steps: [] };
  return { changes: [{ ...base, action: "delete", after: null, changes: viewFields(before, "destroyed") }], steps: [deleteStep(live)] };
}

export function planWebhooks(specs: DesiredWebhookSpec[], live: Webhook[], prune: boolean): WebhookPlan {
  const out: WebhookPlan = { changes: [], steps: [] };
  const claimed = new Set<string>();
  const add = (planned: WebhookPlan): void => {
    out.changes.push(...planned.changes);
    out.steps.push(...planned.steps);
  };
  for (const spec of specs) {
    // The oldest endpoint of the url is the declared one.
    const match = live
      .filter((w) => w.url === spec.url)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))[0];
    if (match) claimed.add(match.id);
    add(planWebhook(spec, match));
  }
  for (const extra of live.filter((w) => !claimed.has(w.id))) add(planUndeclared(extra, prune));
  return out;
}
