/** Diff rules of one cube (differing fields, replacement, what blocks it, steps), shared by the fleet diff and the Pulumi Cube resource. */
import type { TcpMapping } from "../client/api.js";
import type { CreateCubeRequest } from "../schema/api.js";
import { fieldChange, type ResourcePlan, type View, viewFields } from "./change.js";
import { SENSITIVE, powerSide } from "./compare.js";
import { orderSteps } from "./phases.js";
import type { Blocked, CubeRef, DesiredCubeSpec, FieldChange, IgnorableField, ObservedCube, ResourceChange, Step } from "./types.js";

/** The in-cube SSH port a new cube starts with. */
export const DEFAULT_SSH_PORT = 22;

export interface CubePlanInput {
  address: string;
  spec: DesiredCubeSpec;
  live?: ObservedCube;
  /** Pulumi: the inputs of the last apply, to see sshPublicKey/userData changes the API cannot show. */
  olds?: DesiredCubeSpec;
  /** options.allowReplace (flag); the cube's lifecycle.allowReplace is read here too. */
  allowReplace: boolean;
}

export interface CubePlan extends ResourcePlan {
  /** The live cube is deleted by this apply (an unblocked replacement). */
  deletesLive: boolean;
  /** The cube that the cube's domains and ports belong to after the apply. */
  target: CubeRef;
}

export function sshMapping(live: ObservedCube): TcpMapping | undefined {
  return live.tcpMappings.find((mapping) => mapping.isSsh);
}

function isManaged(spec: DesiredCubeSpec, field: IgnorableField): boolean {
  return !spec.lifecycle.ignoreChanges.includes(field);
}

/** A declared value the diff manages: undefined when undeclared or in ignoreChanges. */
export function managed<K extends keyof DesiredCubeSpec & IgnorableField>(spec: DesiredCubeSpec, field: K): DesiredCubeSpec[K] | undefined {
  return isManaged(spec, field) ? spec[field] : undefined;
}

export function liveCubeView(live: ObservedCube): View {
  const { cube } = live;
  const view: View = { id: cube.id, name: cube.name, image: cube.image };
  if (cube.region !== undefined) view.region = cube.region;
  view.resources = { vcpu: cube.resources.vcpu, ramGb: cube.resources.ramGb, diskGb: cube.resources.diskGb };
  view.terminationProtection = cube.terminationProtection;
  view.power = powerSide(cube.state);
  view.state = cube.state;
  view.sshPort = sshMapping(live)?.cubePort ?? null;
  return view;
}

/** What the cube looks like after the apply: the live view with the managed desired values over it. */
export function desiredCubeView(spec: DesiredCubeSpec, live?: ObservedCube, replaced = false): View {
  if (!live || replaced) return newCubeView(spec);
  const view = liveCubeView(live);
  for (const field of ["image", "region", "resources", "terminationProtection", "power", "sshPort"] as const) {
    const value = managed(spec, field);
    if (value !== undefined) view[field] = field === "resources" ? { ...spec.resources } : value;
  }
  delete view.state;
  return view;
}

function newCubeView(spec: DesiredCubeSpec): View {
  const view: View = { id: null, name: spec.name, image: spec.image };
  if (spec.region !== undefined) view.region = spec.region;
  view.resources = { ...spec.resources };
  view.terminationProtection = spec.terminationProtection ?? false;
  view.power = spec.power ?? "running";
  view.sshPort = spec.sshPort ?? DEFAULT_SSH_PORT;
  view.sshPublicKey = spec.sshPublicKey;
  if (spec.userData !== undefined) view.userData = SENSITIVE;
  return view;
}

/** Fields of an existing cube that differ from the desired spec (ignoreChanges and undeclared fields excepted). */
export function cubeFieldChanges(spec: DesiredCubeSpec, live: ObservedCube, olds?: DesiredCubeSpec): FieldChange[] {
  return [...replacedFieldChanges(spec, live, olds), ...inPlaceFieldChanges(spec, live)];
}

function replacedFieldChanges(spec: DesiredCubeSpec, live: ObservedCube, olds?: DesiredCubeSpec): FieldChange[] {
  const { cube } = live;
  const changes: FieldChange[] = [];
  if (isManaged(spec, "image") && cube.image !== spec.image) changes.push(fieldChange("image", cube.image, spec.image, true));
  if (isManaged(spec, "resources")) {
    for (const key of ["vcpu", "ramGb", "diskGb"] as const) {
      if (cube.resources[key] !== spec.resources[key])
        changes.push(fieldChange(`resources.${key}`, cube.resources[key], spec.resources[key], true));
    }
  }
  const region = managed(spec, "region");
  if (region !== undefined && cube.region !== undefined && cube.region !== region)
    changes.push(fieldChange("region", cube.region, region, true));
  if (olds && isManaged(spec, "sshPublicKey") && olds.sshPublicKey !== spec.sshPublicKey)
    changes.push(fieldChange("sshPublicKey", olds.sshPublicKey, spec.sshPublicKey, true));
  if (olds && isManaged(spec, "userData") && (olds.userData ?? "") !== (spec.userData ?? ""))
    changes.push(fieldChange("userData", SENSITIVE, SENSITIVE, true));
  return changes;
}

function inPlaceFieldChanges(spec: DesiredCubeSpec, live: ObservedCube): FieldChange[] {
  const { cube } = live;
  const changes: FieldChange[] = [];
  const protection = managed(spec, "terminationProtection");
  if (protection !== undefined && protection !== cube.terminationProtection)
    changes.push(fieldChange("terminationProtection", cube.terminationProtection, protection));
  const power = managed(spec, "power");
  const side = powerSide(cube.state);
  if (power !== undefined && side !== power) changes.push(fieldChange("power", side === "error" ? "error" : side, power));
  const sshPort = managed(spec, "sshPort");
  const liveSshPort = sshMapping(live)?.cubePort ?? null;
  if (sshPort !== undefined && liveSshPort !== sshPort) changes.push(fieldChange("sshPort", liveSshPort, sshPort));
  return changes;
}

export function createCubeBody(spec: DesiredCubeSpec): CreateCubeRequest {
  const body: CreateCubeRequest = { name: spec.name, image: spec.image, resources: { ...spec.resources }, sshPublicKey: spec.sshPublicKey };
  if (spec.region !== undefined) body.region = spec.region;
  if (spec.userData !== undefined) body.userData = spec.userData;
  // The API's default is false: the flag is sent only to turn protection on.
  if (spec.terminationProtection === true) body.terminationProtection = true;
  return body;
}

/** Steps that bring a new cube to the desired state (after create, its id is known to the executors by name). */
function createSteps(address: string, spec: DesiredCubeSpec): Step[] {
  const cube: CubeRef = { cubeName: spec.name, cubeId: null };
  const steps: Step[] = [{ op: "create-cube", address, cube, body: createCubeBody(spec) }];
  if (spec.sshPort !== undefined && spec.sshPort !== DEFAULT_SSH_PORT)
    steps.push({ op: "set-ssh-port", address, cube, cubePort: spec.sshPort });
  if (spec.power === "stopped") steps.push({ op: "power-off", address, cube });
  else steps.push({ op: "wait-running", address, cube });
  return steps;
}

function inPlaceSteps(address: string, cube: CubeRef, changes: FieldChange[]): Step[] {
  const steps: Step[] = [];
  for (const change of changes) {
    if (change.path === "terminationProtection") steps.push({ op: "set-protection", address, cube, value: change.after === true });
    if (change.path === "sshPort") steps.push({ op: "set-ssh-port", address, cube, cubePort: change.after as number });
    // A cube in state "error" is reported, but no power step can fix it.
    if (change.path === "power" && change.before === "running" && change.after === "stopped")
      steps.push({ op: "power-off", address, cube });
    if (change.path === "power" && change.before === "stopped" && change.after === "running")
      steps.push({ op: "wake", address, cube }, { op: "wait-running", address, cube });
  }
  return steps;
}

function replacementBlock(
  spec: DesiredCubeSpec,
  live: ObservedCube,
  replaceChanges: FieldChange[],
  allowReplace: boolean,
): Blocked | undefined {
  const paths = replaceChanges.map((change) => change.path).join(", ");
  const replaceAllowed = allowReplace || spec.lifecycle.allowReplace;
  const allowHint = "set lifecycle.allowReplace: true on the cube";
  if (live.cube.terminationProtection && managed(spec, "terminationProtection") !== false) {
    const extra = replaceAllowed ? "" : `, and ${allowHint}`;
    const reason = `cube "${spec.name}" has terminationProtection on; set terminationProtection: false in the file (or unprotect it) before replacing it${extra}`;
    return { code: "termination_protected", reason: `${reason} (${paths} cannot change in place)` };
  }
  if (!replaceAllowed) {
    return {
      code: "replace_not_allowed",
      reason: `replacing cube "${spec.name}" destroys its disk (${paths} cannot change in place); ${allowHint} to allow it`,
    };
  }
  return undefined;
}

/** Delete a live cube, then wait until the API no longer lists it (deletes are asynchronous). */
export function deleteCubeSteps(address: string, cube: CubeRef & { cubeId: string }): Step[] {
  return [
    { op: "delete-cube", address, cube },
    { op: "wait-deleted", address, cube },
  ];
}

const ordered = (steps: Step[]): Step[] => orderSteps(steps.map((step) => ({ step, group: 0 })));

export function planCube(input: CubePlanInput): CubePlan {
  const { spec, live, address } = input;
  const newRef: CubeRef = { cubeName: spec.name, cubeId: null };
  if (!live) {
    const after = newCubeView(spec);
    const change: ResourceChange = {
      address,
      kind: "cube",
      cubeName: spec.name,
      id: null,
      action: "create",
      before: null,
      after,
      changes: viewFields(after, "created"),
    };
    return { change, steps: createSteps(address, spec), deletesLive: false, target: newRef };
  }
  const liveRef = { cubeName: spec.name, cubeId: live.cube.id };
  const changes = cubeFieldChanges(spec, live, input.olds);
  const before = liveCubeView(live);
  const replaceChanges = changes.filter((change) => change.forcesReplace);
  const replaced = replaceChanges.length > 0;
  const action = replaced ? "delete-then-create" : changes.length > 0 ? "update" : "noop";
  const after = action === "noop" ? before : desiredCubeView(spec, live, replaced);
  // One literal, keys in this order (see resourceChange: a spread here gives each change its own hidden class).
  const change: ResourceChange = { address, kind: "cube", cubeName: spec.name, id: live.cube.id, before, changes, action, after };
  if (!replaced) return { change, steps: ordered(inPlaceSteps(address, liveRef, changes)), deletesLive: false, target: liveRef };
  const blocked = replacementBlock(spec, live, replaceChanges, input.allowReplace);
  if (blocked) return { change: { ...change, blocked }, steps: [], deletesLive: false, target: liveRef };
  const steps: Step[] = live.cube.terminationProtection ? [{ op: "set-protection", address, cube: liveRef, value: false }] : [];
  steps.push(...deleteCubeSteps(address, liveRef), ...createSteps(address, spec));
  return { change, steps: ordered(steps), deletesLive: true, target: newRef };
}
