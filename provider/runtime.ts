/**
 * `cubeform/provider-runtime`: what the serialized providers of `cubeform/provider` call.
 *
 * CONTRACT: every exported name below is called BY NAME from `__provider` texts already stored
 * in users' Pulumi state. Never rename or remove one; add new names instead.
 */
import type { ConfigureRequest, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from "@pulumi/pulumi/dynamic/index.js";
import { withoutSpentAdoptId } from "./adopt.js";
import { checkInputs, CubeInputSchema, DomainInputSchema, TcpMappingInputSchema, WebhookInputSchema } from "./check.js";
import { createWebhook, deleteWebhook, diffWebhook, readWebhook, updateWebhook } from "./webhook.js";
import { createCube, deleteCube, diffCube, readCube, updateCube } from "./cube.js";
import { createDomain, deleteDomain, diffDomain, readDomain, updateDomain } from "./domain.js";
import { withSecretsRedacted } from "./errors.js";
import { configureSettings, settingsFrom } from "./settings.js";
import { createTcpMapping, deleteTcpMapping, diffTcpMapping, readTcpMapping, updateTcpMapping } from "./tcp-mapping.js";
import type { Props } from "./values.js";

/** Stack config (`cubeform:apiKey`, `cubeform:apiUrl`, ...) into module state; nothing is written anywhere. */
export async function configure(req: ConfigureRequest): Promise<void> {
  configureSettings(settingsFrom(req.config, process.env));
}

function spendAdoptId(olds: Props, outcome: CheckResult): CheckResult {
  return outcome.inputs ? { ...outcome, inputs: withoutSpentAdoptId(olds ?? {}, outcome.inputs) } : outcome;
}

// ------------------------------------------------------------------ Cube

export async function cubeCheck(olds: Props, news: Props): Promise<CheckResult> {
  return spendAdoptId(olds, checkInputs(CubeInputSchema, news, { dropNulls: true }));
}
export async function cubeDiff(id: string, olds: Props, news: Props): Promise<DiffResult> {
  return diffCube(id, olds, news);
}
export async function cubeCreate(inputs: Props): Promise<CreateResult> {
  return withSecretsRedacted([inputs], () => createCube(inputs));
}
export async function cubeRead(id: string, props?: Props): Promise<ReadResult> {
  return readCube(id, props);
}
export async function cubeUpdate(id: string, olds: Props, news: Props): Promise<UpdateResult> {
  return withSecretsRedacted([news], () => updateCube(id, olds, news));
}
export async function cubeDelete(id: string, props: Props): Promise<void> {
  return deleteCube(id, props);
}

// ------------------------------------------------------------------ Domain

export async function domainCheck(olds: Props, news: Props): Promise<CheckResult> {
  return spendAdoptId(olds, checkInputs(DomainInputSchema, news, { dropNulls: false, aliases: "Domain" }));
}
export async function domainDiff(id: string, olds: Props, news: Props): Promise<DiffResult> {
  return diffDomain(id, olds, news);
}
export async function domainCreate(inputs: Props): Promise<CreateResult> {
  return withSecretsRedacted([inputs], () => createDomain(inputs));
}
export async function domainRead(id: string, props?: Props): Promise<ReadResult> {
  return readDomain(id, props);
}
export async function domainUpdate(id: string, olds: Props, news: Props): Promise<UpdateResult> {
  return withSecretsRedacted([olds, news], () => updateDomain(id, olds, news));
}
export async function domainDelete(id: string, props: Props): Promise<void> {
  return deleteDomain(id, props);
}

// ------------------------------------------------------------------ TcpMapping

export async function tcpMappingCheck(olds: Props, news: Props): Promise<CheckResult> {
  return spendAdoptId(olds, checkInputs(TcpMappingInputSchema, news, { dropNulls: true, aliases: "TcpMapping" }));
}
export async function tcpMappingDiff(id: string, olds: Props, news: Props): Promise<DiffResult> {
  return diffTcpMapping(id, olds, news);
}
export async function tcpMappingCreate(inputs: Props): Promise<CreateResult> {
  return createTcpMapping(inputs);
}
export async function tcpMappingRead(id: string, _props?: Props): Promise<ReadResult> {
  return readTcpMapping(id);
}
export async function tcpMappingUpdate(id: string, olds: Props, _news: Props): Promise<UpdateResult> {
  return updateTcpMapping(id, olds);
}
export async function tcpMappingDelete(id: string, props: Props): Promise<void> {
  return deleteTcpMapping(id, props);
}

// ------------------------------------------------------------------ Webhook

export async function webhookCheck(_olds: Props, news: Props): Promise<CheckResult> {
  return checkInputs(WebhookInputSchema, news, { dropNulls: true });
}
export async function webhookDiff(id: string, olds: Props, news: Props): Promise<DiffResult> {
  return diffWebhook(id, olds, news);
}
export async function webhookCreate(inputs: Props): Promise<CreateResult> {
  return withSecretsRedacted([inputs], () => createWebhook(inputs));
}
export async function webhookRead(id: string, props?: Props): Promise<ReadResult> {
  return readWebhook(id, props);
}
export async function webhookUpdate(id: string, olds: Props, _news: Props): Promise<UpdateResult> {
  return withSecretsRedacted([olds], () => updateWebhook(id, olds));
}
export async function webhookDelete(id: string, _props: Props): Promise<void> {
  return deleteWebhook(id);
}
