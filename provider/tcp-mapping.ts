/**
 * The TcpMapping resource: Pulumi inputs/outputs ↔ the engine's DesiredPortSpec / TcpMapping.
 * The API cannot change a mapping: every difference is a replacement (the engine decides).
 */
import type { CreateResult, DiffResult, ReadResult, UpdateResult } from "@pulumi/pulumi/dynamic/index.js";
import { planPort, planPortResource, type DesiredPortSpec, type ResourcePlan } from "../engine/index.js";
import type { TcpMapping } from "../client/api.js";
import { adoptIdOf, adoptionNotFound, requireNoop } from "./adopt.js";
import { stateValue } from "./aliases.js";
import { userInputs } from "./check.js";
import { childId, findChild, underCube } from "./ids.js";
import { apiClient } from "./settings.js";
import { createdId, deleteChildResource, runOrThrow } from "./steps.js";
import { toDiffResult } from "./translate.js";
import type { TcpMappingInputs, TcpMappingOutputs } from "./types.js";
import { declared, declaredOnly, type Props } from "./values.js";

/** The API's default when UDP is not declared. */
const DEFAULT_UDP = true;

function portSpec(inputs: TcpMappingInputs): DesiredPortSpec {
  return {
    cubePort: inputs.cubePort,
    udp: declared(inputs.udp) ?? DEFAULT_UDP,
    allow: [...(declared(inputs.allow) ?? [])],
    ...declaredOnly({ label: inputs.label }),
  };
}

function inputsOf(props: Props): TcpMappingInputs {
  return userInputs(props) as unknown as TcpMappingInputs;
}

function plan(inputs: TcpMappingInputs, live?: TcpMapping): ResourcePlan {
  return planPortResource({ cubeId: inputs.cubeId, cubeName: inputs.cubeId, news: portSpec(inputs), live });
}

/** The old outputs as the live view: diff needs no HTTP. State of older releases has the deprecated names (aliases.ts). */
function liveFromOutputs(outs: Partial<TcpMappingOutputs>): TcpMapping {
  return {
    id: outs.mappingId ?? "",
    cubeId: outs.cubeId ?? "",
    cubePort: outs.cubePort ?? 0,
    hostPort: outs.hostPort ?? 0,
    host: outs.host ?? null,
    label: outs.label ?? null,
    status: outs.status ?? "",
    isSsh: false,
    udp: stateValue<boolean>(outs, "TcpMapping", "udp") ?? DEFAULT_UDP,
    allow: stateValue<string[]>(outs, "TcpMapping", "allow") ?? [],
  };
}

/** `host`, where to connect: the mapping's host, else the cube's public address. */
async function outputsFor(live: TcpMapping): Promise<TcpMappingOutputs> {
  const host = live.host ?? (await apiClient().getCube(live.cubeId)).publicIpv4;
  return {
    mappingId: live.id,
    cubeId: live.cubeId,
    cubePort: live.cubePort,
    host,
    hostPort: live.hostPort,
    label: live.label,
    udp: live.udp,
    allow: live.allow,
    status: live.status,
  };
}

function findMapping(id: string) {
  return findChild(id, (cubeId) => apiClient().listTcpMappings(cubeId));
}

export async function diffTcpMapping(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  return toDiffResult(plan(inputsOf(news), liveFromOutputs(olds as Partial<TcpMappingOutputs>)).change);
}

/** Takes over the live mapping when it matches the inputs; reads only, so a mismatch changes nothing. */
async function adoptTcpMapping(id: string, inputs: TcpMappingInputs): Promise<CreateResult> {
  const what = `TCP mapping of port ${inputs.cubePort} (id ${id})`;
  const found = await findMapping(underCube(id, inputs.cubeId));
  if (!found || found.item.isSsh) throw adoptionNotFound(`TCP mapping of port ${inputs.cubePort}`, id);
  requireNoop(what, plan(inputs, found.item).change);
  return { id: childId(found.cubeId, found.childId), outs: await outputsFor(found.item) };
}

export async function createTcpMapping(props: Props): Promise<CreateResult> {
  const inputs = inputsOf(props);
  const adoptId = adoptIdOf(inputs as unknown as Props);
  if (adoptId) return adoptTcpMapping(adoptId, inputs);
  const outcomes = await runOrThrow(plan(inputs).steps);
  const mappingId = createdId(outcomes, "create-port");
  if (!mappingId) throw new Error(`Mapping port ${inputs.cubePort} returned no id`);
  const found = await findMapping(childId(inputs.cubeId, mappingId));
  if (!found) throw new Error(`TCP mapping ${mappingId} vanished right after it was created`);
  return { id: childId(found.cubeId, mappingId), outs: await outputsFor(found.item) };
}

/** `id` is "<cubeId>/<mappingId>" (a bare mapping id is looked up across the space's cubes). */
export async function readTcpMapping(id: string): Promise<ReadResult> {
  const found = await findMapping(id);
  if (!found || found.item.isSsh) return {};
  const outs = await outputsFor(found.item);
  const inputs: Props = {
    cubeId: outs.cubeId,
    cubePort: outs.cubePort,
    udp: outs.udp,
    allow: outs.allow,
    ...declaredOnly({ label: outs.label }),
  };
  return { id: childId(found.cubeId, found.childId), props: outs, inputs };
}

/** Never called for a real change (every change replaces): refreshes the outputs. */
export async function updateTcpMapping(id: string, olds: Props): Promise<UpdateResult> {
  const found = await findMapping(id);
  return { outs: found ? await outputsFor(found.item) : olds };
}

/** A 404 (mapping or cube gone) is success. */
export async function deleteTcpMapping(id: string, props: Props): Promise<void> {
  await deleteChildResource(id, liveFromOutputs(props as Partial<TcpMappingOutputs>), planPort);
}
