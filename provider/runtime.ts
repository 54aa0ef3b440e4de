/**
 * `cubeform/provider-runtime`: what the serialized providers of `cubeform/provider` call. CONTRACT: every exported name is
 * called BY NAME from `__provider` texts already in users' Pulumi state: never rename or remove one; add new names instead.
 * A name whose implementation takes the provider's arguments as they come is a re-export of it.
 */
import type { ConfigureRequest, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from "@pulumi/pulumi/dynamic/index.js";
import { withoutSpentAdoptId } from "./adopt.js";
import { checkInputs, type CheckOutcome, CubeInputSchema, DomainInputSchema, TcpMappingInputSchema, WebhookInputSchema } from "./check.js";
import { createWebhook, deleteWebhook, updateWebhook } from "./webhook.js";
import { createCube, diffCube, updateCube } from "./cube.js";
import { checkCubeGroup, createCubeGroup, updateCubeGroup } from "./cube-group.js";
import { createDomain, updateDomain } from "./domain.js";
import { withSecretsRedacted } from "./errors.js";
import { configureSettings, settingsFrom } from "./settings.js";
import { policyFailures, refuseByPolicy } from "./policy.js";
import { diffTcpMapping, readTcpMapping, updateTcpMapping } from "./tcp-mapping.js";
import type { Props } from "./values.js";

/** Stack config (`cubeform:apiKey`, `cubeform:apiUrl`, ...) into module state; nothing is written anywhere. */
export async function configure(req: ConfigureRequest): Promise<void> {
  configureSettings(settingsFrom(req.config, process.env));
}

function spendAdoptId(olds: Props, outcome: CheckResult): CheckResult {
  return outcome.inputs ? { ...outcome, inputs: withoutSpentAdoptId(olds ?? {}, outcome.inputs) } : outcome;
}

/** Valid inputs are then judged by the policy files' mandatory rules (policy.ts). */
async function withPolicy(kind: "Cube" | "TcpMapping", outcome: CheckOutcome): Promise<CheckOutcome> {
  if (outcome.failures.length > 0) return outcome;
  return { ...outcome, failures: await policyFailures(kind, outcome.inputs) };
}

export { readCube as cubeRead, deleteCube as cubeDelete } from "./cube.js";

/** The new inputs are judged by the policy files again (policy.ts): a mandatory violation fails the diff with the rule's message. */
export async function cubeDiff(id: string, olds: Props, news: Props): Promise<DiffResult> {
  await refuseByPolicy("Cube", news);
  return diffCube(id, olds, news);
}

export async function cubeCheck(olds: Props, news: Props): Promise<CheckResult> {
  return spendAdoptId(olds, await withPolicy("Cube", checkInputs(CubeInputSchema, news, { dropNulls: true })));
}
export async function cubeCreate(inputs: Props): Promise<CreateResult> {
  return withSecretsRedacted([inputs], () => createCube(inputs));
}
export async function cubeUpdate(id: string, olds: Props, news: Props): Promise<UpdateResult> {
  return withSecretsRedacted([news], () => updateCube(id, olds, news));
}

export { diffDomain as domainDiff, readDomain as domainRead, deleteDomain as domainDelete } from "./domain.js";

export async function domainCheck(olds: Props, news: Props): Promise<CheckResult> {
  return spendAdoptId(olds, checkInputs(DomainInputSchema, news, { dropNulls: false, aliases: "Domain" }));
}
export async function domainCreate(inputs: Props): Promise<CreateResult> {
  return withSecretsRedacted([inputs], () => createDomain(inputs));
}
export async function domainUpdate(id: string, olds: Props, news: Props): Promise<UpdateResult> {
  return withSecretsRedacted([olds, news], () => updateDomain(id, olds, news));
}

export { createTcpMapping as tcpMappingCreate, deleteTcpMapping as tcpMappingDelete } from "./tcp-mapping.js";

export async function tcpMappingDiff(id: string, olds: Props, news: Props): Promise<DiffResult> {
  await refuseByPolicy("TcpMapping", news);
  return diffTcpMapping(id, olds, news);
}

export async function tcpMappingCheck(olds: Props, news: Props): Promise<CheckResult> {
  return spendAdoptId(
    olds,
    await withPolicy("TcpMapping", checkInputs(TcpMappingInputSchema, news, { dropNulls: true, aliases: "TcpMapping" })),
  );
}
export async function tcpMappingRead(id: string, _props?: Props): Promise<ReadResult> {
  return readTcpMapping(id);
}
export async function tcpMappingUpdate(id: string, olds: Props, _news: Props): Promise<UpdateResult> {
  return updateTcpMapping(id, olds);
}

export { diffWebhook as webhookDiff, readWebhook as webhookRead } from "./webhook.js";

export async function webhookCheck(_olds: Props, news: Props): Promise<CheckResult> {
  return checkInputs(WebhookInputSchema, news, { dropNulls: true });
}
export async function webhookCreate(inputs: Props): Promise<CreateResult> {
  return withSecretsRedacted([inputs], () => createWebhook(inputs));
}
export async function webhookUpdate(id: string, olds: Props, _news: Props): Promise<UpdateResult> {
  return withSecretsRedacted([olds], () => updateWebhook(id, olds));
}
export async function webhookDelete(id: string, _props: Props): Promise<void> {
  return deleteWebhook(id);
}

export { diffCubeGroup as cubeGroupDiff, readCubeGroup as cubeGroupRead, deleteCubeGroup as cubeGroupDelete } from "./cube-group.js";

export async function cubeGroupCheck(_olds: Props, news: Props): Promise<CheckResult> {
  return checkCubeGroup(news);
}
export async function cubeGroupCreate(inputs: Props): Promise<CreateResult> {
  return withSecretsRedacted([inputs], () => createCubeGroup(inputs));
}
export async function cubeGroupUpdate(id: string, olds: Props, news: Props): Promise<UpdateResult> {
  return withSecretsRedacted([news], () => updateCubeGroup(id, olds, news));
}
