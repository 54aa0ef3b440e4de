/** The Cube resource: Pulumi inputs/outputs ↔ the engine's DesiredCubeSpec / ObservedCube (diffed by planCubeResource). */
import type { CreateResult, DiffResult, ReadResult, UpdateResult } from "@pulumi/pulumi/dynamic/index.js";
import { cubeAddress, deleteCubeSteps, errorCode, ignoreNotFound, isNotFound, planCubeResource } from "../engine/index.js";
import type { DesiredCubeSpec, ObservedCube, Step } from "../engine/index.js";
import type { CubeApi, TcpMapping } from "../client/api.js";
import type { Cube } from "../schema/api.js";
import { adoptIdOf, adoptionNotFound, requireNoop } from "./adopt.js";
import { containsUnknown, PROVIDER_KEY, userInputs } from "./check.js";
import { protectedCubeMessage, ResourceInitFailed } from "./errors.js";
import { apiClient } from "./settings.js";
import { createdId, hasPendingCreate, runOrThrow } from "./steps.js";
import { goneError, requireInPlace, toDiffResult } from "./translate.js";
import type { CubeInputs, CubeOutputs } from "./types.js";
import { declaredOnly, digestMatches, saltedDigestOrNull, str, type Props } from "./values.js";

export function cubeSpec(props: Props): DesiredCubeSpec {
  const inputs = userInputs(props) as unknown as CubeInputs;
  const spec: DesiredCubeSpec = {
    name: inputs.name,
    image: inputs.image,
    resources: { ...inputs.resources },
    sshPublicKey: inputs.sshPublicKey,
    // Pulumi shows replacements in its own preview: no extra opt-in as in the CLI.
    lifecycle: { allowReplace: true, ignoreChanges: [] },
  };
  const { region, userData, terminationProtection, power, sshPort } = inputs;
  return Object.assign(spec, declaredOnly({ region, userData, terminationProtection, power, sshPort }));
}

/** The inputs of the last apply, as far as outputs keep them: only sshPublicKey and userData matter to the engine (the API never shows them). */
function previousSpec(outs: Partial<CubeOutputs>, news: DesiredCubeSpec): DesiredCubeSpec {
  // After an import the echoes are unknown (no sshPublicKey): count them as unchanged.
  if (typeof outs.sshPublicKey !== "string") return news;
  const olds: DesiredCubeSpec = { ...news, sshPublicKey: outs.sshPublicKey };
  const oldDigest = outs.userDataDigest ?? null;
  // The engine compares texts; a digest mismatch is shown as a text that cannot equal the new one.
  if (!sameUserData(oldDigest, news.userData)) {
    delete olds.userData;
    if (oldDigest !== null) olds.userData = `digest:${oldDigest}`;
  }
  return olds;
}

function sameUserData(oldDigest: string | null, userData: string | undefined): boolean {
  if (oldDigest === null || userData === undefined) return oldDigest === null && userData === undefined;
  return digestMatches(oldDigest, userData);
}

/** The old outputs as the live view: diff needs no HTTP (`pulumi refresh` updates them). */
function liveFromOutputs(id: string, outs: Partial<CubeOutputs>): ObservedCube {
  const cube: Cube = {
    id,
    name: outs.name ?? "",
    state: (outs.state ?? "running") as Cube["state"],
    publicIpv4: outs.publicIpv4 ?? null,
    image: outs.image ?? "",
    sshUser: outs.sshUser ?? "",
    resources: outs.resources ?? { vcpu: 0, ramGb: 0, diskGb: 0 },
    terminationProtection: outs.terminationProtection ?? false,
    terminationProtectionChangedAt: outs.terminationProtectionChangedAt ?? null,
    terminationProtectionChangedBy: outs.terminationProtectionChangedBy ?? null,
  };
  if (typeof outs.region === "string") cube.region = outs.region;
  const sshPort = outs.sshPort;
  if (typeof sshPort !== "number") return { cube, domains: [], tcpMappings: [] };
  const ssh: TcpMapping = {
    id: "ssh",
    cubeId: id,
    cubePort: sshPort,
    hostPort: outs.sshHostPort ?? 0,
    host: outs.sshHost ?? null,
    label: "SSH",
    status: "active",
    isSsh: true,
    udp: false,
    allow: [],
  };
  return { cube, domains: [], tcpMappings: [ssh] };
}

/** What outputs echo of the inputs. */
type Echo = Pick<CubeOutputs, "sshPublicKey" | "userDataDigest" | "power">;

function echoOf(spec: DesiredCubeSpec): Echo {
  return { sshPublicKey: spec.sshPublicKey, userDataDigest: saltedDigestOrNull(spec.userData), power: spec.power ?? null };
}

function echoFromOutputs(outs: Partial<CubeOutputs>): Echo {
  return { sshPublicKey: outs.sshPublicKey ?? null, userDataDigest: outs.userDataDigest ?? null, power: outs.power ?? null };
}

function cubeOutputs(live: ObservedCube, echo: Echo): CubeOutputs {
  const { cube } = live;
  const ssh = live.tcpMappings.find((mapping) => mapping.isSsh);
  return {
    cubeId: cube.id,
    name: cube.name,
    state: cube.state,
    publicIpv4: cube.publicIpv4,
    sshUser: cube.sshUser,
    sshHost: ssh?.host ?? cube.publicIpv4 ?? null,
    sshHostPort: ssh?.hostPort ?? null,
    sshPort: ssh?.cubePort ?? null,
    image: cube.image,
    region: cube.region ?? null,
    resources: { vcpu: cube.resources.vcpu, ramGb: cube.resources.ramGb, diskGb: cube.resources.diskGb },
    terminationProtection: cube.terminationProtection,
    terminationProtectionChangedAt: cube.terminationProtectionChangedAt,
    terminationProtectionChangedBy: cube.terminationProtectionChangedBy,
    ...echo,
  };
}

/** Read inputs back from the live cube (refresh and import). */
function inputsFromOutputs(outs: CubeOutputs): Props {
  const { name, image, resources, terminationProtection, region, sshPublicKey, sshPort, power } = outs;
  return { name, image, resources, terminationProtection, ...declaredOnly({ region, sshPublicKey, sshPort, power }) };
}

export async function readLiveCube(client: CubeApi, id: string): Promise<ObservedCube | undefined> {
  const read = await ignoreNotFound(Promise.all([client.getCube(id), client.listTcpMappings(id)]));
  return read && { cube: read[0], domains: [], tcpMappings: read[1] };
}

async function requireLiveCube(id: string, name: string): Promise<ObservedCube> {
  const live = await readLiveCube(apiClient(), id);
  if (!live) throw goneError(`Cube "${name}" (id ${id})`);
  return live;
}

export async function diffCube(id: string, olds: Props, news: Props): Promise<DiffResult> {
  const outs = olds as Partial<CubeOutputs>;
  const spec = cubeSpec(news);
  const live = liveFromOutputs(id, outs);
  const plan = planCubeResource({ olds: previousSpec(outs, spec), news: spec, live, allowReplace: true });
  const renamed = typeof outs.name === "string" && outs.name !== spec.name;
  const result = toDiffResult(plan.change, renamed ? ["name"] : []);
  // A value still unknown at preview may turn out equal: only a known change is refused.
  const knownReplaces = (result.replaces ?? []).filter((property) => !containsUnknown(userInputs(news)[property]));
  if (knownReplaces.length > 0 && live.cube.terminationProtection) {
    // A replacement deletes the protected cube: refuse at preview, as Pulumi's own `protect` does.
    throw new Error(protectedCubeMessage(live.cube.name, id, ` (${knownReplaces.join(", ")} cannot change in place)`));
  }
  return result;
}

/** A cube created but not ready is still recorded (ErrorResourceInitFailed), its properties as they are: with `__provider`, or no later delete could load it. */
async function initFailure(id: string, spec: DesiredCubeSpec, error: unknown, provider: unknown): Promise<Error> {
  const live = await readLiveCube(apiClient(), id).catch(() => undefined);
  const state = live?.cube.state ?? "unknown";
  const reason = error instanceof Error ? error.message : String(error);
  const message = `Cube "${spec.name}" (id ${id}) was created but is not ready: its state is "${state}". ${reason}`;
  return live ? new ResourceInitFailed(message, id, { ...cubeOutputs(live, echoOf(spec)), [PROVIDER_KEY]: provider }) : new Error(message);
}

/** Takes over the live cube when it matches the inputs; reads only, so a mismatch changes nothing. */
async function adoptCube(id: string, spec: DesiredCubeSpec): Promise<CreateResult> {
  const what = `cube "${spec.name}" (id ${id})`;
  const live = await readLiveCube(apiClient(), id);
  if (!live) throw adoptionNotFound(`cube "${spec.name}"`, id);
  // The API never shows sshPublicKey or userData: they count as unchanged, as after an import.
  const plan = planCubeResource({ olds: spec, news: spec, live, allowReplace: true });
  const renamed = live.cube.name === spec.name ? [] : [{ path: "name", before: live.cube.name, after: spec.name, forcesReplace: true }];
  requireNoop(what, plan.change, renamed);
  return { id, outs: cubeOutputs(live, echoOf(spec)) };
}

/**
 * The journal lives in this plugin's memory only: a create whose answer an earlier `pulumi up` lost left a cube this run does not know, and a second create
 * would duplicate it. So a create this plugin has not sent already first looks for a live cube of its name.
 */
async function refuseUnknownNamesake(name: string, steps: Step[]): Promise<void> {
  const create = steps.find((step): step is Extract<Step, { op: "create-cube" }> => step.op === "create-cube");
  if (create === undefined || (await hasPendingCreate(create))) return;
  const namesakes = (await apiClient().listCubes()).filter((cube) => cube.name === name && cube.state !== "deleted");
  if (namesakes.length > 0) throw new Error(namesakeMessage(name, namesakes));
}

function namesakeMessage(name: string, namesakes: Cube[]): string {
  const ids = namesakes.map((cube) => `${cube.id} (${cube.state})`).join(", ");
  const advice =
    namesakes.length === 1
      ? `set adoptId: "${namesakes[0]!.id}" on this resource and run pulumi up again`
      : "set adoptId to the id of the one to keep, and delete the others";
  const why = `the space already has a live cube of that name that this stack has no record of: ${ids}`;
  const whose = "It may be this stack's own (an earlier pulumi up lost the API's answer) or one made outside it.";
  return `Cube "${name}" was not created: ${why}. ${whose} To manage it, ${advice}; otherwise give this resource another name. Nothing was changed.`;
}

export async function createCube(props: Props): Promise<CreateResult> {
  const spec = cubeSpec(props);
  const adoptId = adoptIdOf(userInputs(props));
  if (adoptId) return adoptCube(adoptId, spec);
  const plan = planCubeResource({ news: spec, allowReplace: true });
  await refuseUnknownNamesake(spec.name, plan.steps);
  const cubeIds = new Map<string, string>();
  let id: string | undefined;
  try {
    const outcomes = await runOrThrow(plan.steps, { cubeIds });
    id = cubeIds.get(spec.name) ?? createdId(outcomes, "create-cube");
  } catch (error) {
    const created = cubeIds.get(spec.name);
    throw created ? await initFailure(created, spec, error, props[PROVIDER_KEY]) : error;
  }
  if (!id) throw new Error(`Creating cube "${spec.name}" returned no id`);
  const live = await requireLiveCube(id, spec.name);
  return { id, outs: cubeOutputs(live, echoOf(spec)) };
}

export async function readCube(id: string, props: Props | undefined): Promise<ReadResult> {
  const live = await readLiveCube(apiClient(), id);
  if (!live) return {};
  const outs = cubeOutputs(live, echoFromOutputs((props ?? {}) as Partial<CubeOutputs>));
  return { id, props: outs, inputs: inputsFromOutputs(outs) };
}

/** In place only (protection, power, SSH port), planned against the live cube so no needless PATCH is sent. */
export async function updateCube(id: string, olds: Props, news: Props): Promise<UpdateResult> {
  const outs = olds as Partial<CubeOutputs>;
  const spec = cubeSpec(news);
  const live = await requireLiveCube(id, spec.name);
  const plan = planCubeResource({ olds: previousSpec(outs, spec), news: spec, live, allowReplace: true });
  requireInPlace(`Cube "${spec.name}" (id ${id})`, plan.change);
  await runOrThrow(plan.steps, { cubeIds: new Map([[spec.name, id]]) });
  const after = await requireLiveCube(id, spec.name);
  return { outs: cubeOutputs(after, echoOf(spec)) };
}

/** The API refuses a protected cube (409) atomically: nothing else is touched. A 404 means already gone. */
export async function deleteCube(id: string, props: Props): Promise<void> {
  const name = str(props.name) ?? id;
  try {
    await runOrThrow(deleteCubeSteps(cubeAddress(name), { cubeName: name, cubeId: id }), { cubeIds: new Map([[name, id]]) });
  } catch (error) {
    if (isNotFound(error)) return;
    if (errorCode(error) === "termination_protected") throw new Error(protectedCubeMessage(name, id));
    throw error;
  }
}
