/** The Domain resource: Pulumi inputs/outputs ↔ the engine's DesiredDomainSpec / Domain. Outputs hold only the password's salted digest. */
import type { CreateResult, DiffResult, ReadResult, UpdateResult } from "@pulumi/pulumi/dynamic/index.js";
import { planDomain, planDomainResource, type DesiredDomainSpec, type ResourcePlan } from "../engine/index.js";
import type { Domain } from "../client/api.js";
import type { DnsRecord } from "../schema/api.js";
import { adoptIdOf, adoptionNotFound, requireNoop } from "./adopt.js";
import { stateValue } from "./aliases.js";
import { userInputs } from "./check.js";
import { childId, findChild, parseChildId, underCube } from "./ids.js";
import { apiClient } from "./settings.js";
import { createdId, deleteChildResource, runOrThrow, type RunOptions } from "./steps.js";
import { goneError, requireInPlace, toDiffResult } from "./translate.js";
import { DOMAIN_SETTING_NAMES, type DomainInputs, type DomainOutputs, type DomainRecordOutput } from "./types.js";
import { declared, digestMatches, saltedDigestOrNull, str, type Props } from "./values.js";

/** The SecretRef name the steps use for the password; its value comes from the inputs. */
const PASSWORD_REF = "basicAuthPassword";

type Settings = DesiredDomainSpec["settings"];

function domainSpec(inputs: DomainInputs): DesiredDomainSpec {
  const settings: Record<string, unknown> = {};
  // null is a declared value here: it clears the setting.
  for (const key of DOMAIN_SETTING_NAMES) if (inputs[key] !== undefined) settings[key] = inputs[key];
  const spec: DesiredDomainSpec = { hostname: inputs.hostname, port: inputs.port, settings: settings as Settings };
  if (declared(inputs.basicAuthPassword) !== undefined) spec.basicAuthPassword = { env: PASSWORD_REF };
  return spec;
}

type DomainRequest = ReturnType<typeof request>;

function request(props: Props): { inputs: DomainInputs; spec: DesiredDomainSpec; run: RunOptions } {
  const inputs = userInputs(props) as unknown as DomainInputs;
  return { inputs, spec: domainSpec(inputs), run: { secrets: { [PASSWORD_REF]: declared(inputs.basicAuthPassword) } } };
}

function passwordChanged(inputs: DomainInputs, outs: Partial<DomainOutputs>): boolean {
  const password = declared(inputs.basicAuthPassword);
  const digest = outs.basicAuthPasswordDigest;
  return password !== undefined && (typeof digest !== "string" || !digestMatches(digest, password));
}

/** The old outputs as the live view: diff needs no HTTP. State of older releases names the hostname by its deprecated name (aliases.ts). */
function liveFromOutputs(outs: Partial<DomainOutputs>): Domain {
  const live: Record<string, unknown> = {
    id: outs.domainId ?? "",
    cubeId: outs.cubeId ?? "",
    hostname: stateValue<string>(outs, "Domain", "hostname") ?? "",
    port: outs.port ?? null,
    status: outs.status ?? "",
    isWildcard: outs.isWildcard ?? false,
    basicAuthEnabled: outs.basicAuthEnabled ?? false,
  };
  for (const key of DOMAIN_SETTING_NAMES) if (outs[key] !== undefined) live[key] = outs[key];
  return live as Domain;
}

function recordOutputs(records: Pick<DnsRecord, "type" | "host" | "value" | "mustBeGrey" | "proxyOk" | "purpose">[]): DomainRecordOutput[] {
  return records.map((record) => ({
    type: record.type,
    host: record.host,
    value: record.value,
    mustBeGrey: record.mustBeGrey,
    proxyOk: record.proxyOk,
    purpose: record.purpose,
  }));
}

/** The outputs of a live domain; its DNS records are read unless the attach just returned them. */
async function domainOutputs(live: Domain, passwordDigest: string | null, attached: DnsRecord[] = []): Promise<DomainOutputs> {
  const records = recordOutputs(attached.length > 0 ? attached : (await apiClient().getDomainRecords(live.cubeId, live.id)).records);
  const settings = Object.fromEntries(DOMAIN_SETTING_NAMES.map((key) => [key, live[key] ?? null])) as Pick<
    DomainOutputs,
    (typeof DOMAIN_SETTING_NAMES)[number]
  >;
  return {
    ...settings,
    domainId: live.id,
    cubeId: live.cubeId,
    hostname: live.hostname,
    port: live.port,
    records,
    isWildcard: live.isWildcard,
    status: live.status,
    basicAuthEnabled: live.basicAuthEnabled ?? false,
    basicAuthPasswordDigest: passwordDigest,
  };
}

function findDomain(id: string) {
  return findChild(id, (cubeId) => apiClient().listDomains(cubeId));
}

async function liveDomain(cubeId: string, domainId: string): Promise<Domain | undefined> {
  return (await findDomain(childId(cubeId, domainId)))?.item;
}

function plan(request: DomainRequest, live: Domain | undefined, passwordChanged: boolean): ResourcePlan {
  const { cubeId } = request.inputs;
  return planDomainResource({ cubeId, cubeName: cubeId, news: request.spec, passwordChanged, live });
}

const passwordDigest = (req: DomainRequest): string | null => saltedDigestOrNull(declared(req.inputs.basicAuthPassword));

export async function diffDomain(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  const outs = olds as Partial<DomainOutputs>;
  const req = request(news);
  return toDiffResult(plan(req, liveFromOutputs(outs), passwordChanged(req.inputs, outs)).change);
}

/** Takes over the live domain when it matches the inputs (reads only); the password, unreadable, is not compared but recorded as declared. */
async function adoptDomain(id: string, req: DomainRequest): Promise<CreateResult> {
  const what = `domain ${req.inputs.hostname} (id ${id})`;
  const found = await findDomain(underCube(id, req.inputs.cubeId));
  if (!found) throw adoptionNotFound(`domain ${req.inputs.hostname}`, id);
  requireNoop(what, plan(req, found.item, false).change);
  return { id: childId(found.cubeId, found.childId), outs: await domainOutputs(found.item, passwordDigest(req)) };
}

export async function createDomain(props: Props): Promise<CreateResult> {
  const req = request(props);
  const adoptId = adoptIdOf(req.inputs as unknown as Props);
  if (adoptId) return adoptDomain(adoptId, req);
  const outcomes = await runOrThrow(plan(req, undefined, false).steps, req.run);
  const domainId = createdId(outcomes, "attach-domain");
  if (!domainId) throw new Error(`Attaching domain ${req.inputs.hostname} returned no id`);
  const live = await liveDomain(req.inputs.cubeId, domainId);
  if (!live) throw new Error(`Domain ${req.inputs.hostname} (id ${domainId}) vanished right after it was attached`);
  const attached = outcomes.find((outcome) => outcome.step.op === "attach-domain")?.records;
  return { id: childId(live.cubeId, live.id), outs: await domainOutputs(live, passwordDigest(req), attached) };
}

/** `id` is "<cubeId>/<domainId>" (a bare domain id is looked up across the space's cubes). */
export async function readDomain(id: string, props: Props | undefined): Promise<ReadResult> {
  const found = await findDomain(id);
  if (!found) return {};
  const outs = await domainOutputs(found.item, str(props?.basicAuthPasswordDigest) ?? null);
  return { id: childId(found.cubeId, found.childId), props: outs, inputs: inputsFromOutputs(outs) };
}

function inputsFromOutputs(outs: DomainOutputs): Props {
  const inputs: Props = { cubeId: outs.cubeId, hostname: outs.hostname, port: outs.port };
  for (const key of DOMAIN_SETTING_NAMES) if (outs[key] !== null) inputs[key] = outs[key];
  return inputs;
}

/** Settings (and the password) change in place; planned against the live domain. */
export async function updateDomain(id: string, olds: Props, news: Props): Promise<UpdateResult> {
  const req = request(news);
  const { cubeId, childId: domainId } = parseChildId(id);
  const live = await liveDomain(cubeId ?? req.inputs.cubeId, domainId);
  if (!live) throw goneError(`Domain ${req.inputs.hostname} (id ${id})`);
  const planned = plan(req, live, passwordChanged(req.inputs, olds as Partial<DomainOutputs>));
  requireInPlace(`Domain ${req.inputs.hostname} (id ${id})`, planned.change);
  await runOrThrow(planned.steps, req.run);
  const after = (await liveDomain(live.cubeId, live.id)) ?? live;
  return { outs: await domainOutputs(after, passwordDigest(req)) };
}

/** A 404 (domain or cube gone) is success. */
export async function deleteDomain(id: string, props: Props): Promise<void> {
  await deleteChildResource(id, liveFromOutputs(props as Partial<DomainOutputs>), planDomain);
}
