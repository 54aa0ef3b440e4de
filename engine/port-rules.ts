/** Diff rules of one published TCP port (identity: cubePort in its cube; the SSH mapping is none): the API cannot change one, any difference replaces it. */
import type { TcpMapping } from "../client/api.js";
import { portAddress } from "./address.js";
import { createdPlan, cubeMoveChange, deletedPlan, fieldChange, resourceChange } from "./change.js";
import type { ChangeBase, ResourcePlan, View } from "./change.js";
import { sameSet, sortedOrNull } from "./compare.js";
import type { CubeRef, DesiredPortSpec, FieldChange, ProjectedCube, Step } from "./types.js";

export interface PortPlanInput {
  cubeAddress: string;
  cube: CubeRef;
  spec?: DesiredPortSpec;
  live?: TcpMapping;
  /** The cube is deleted by this apply: its mappings go with it, no delete is sent. */
  cubeDeleted?: boolean;
}

/** Also the port as a plan's prior state projects it. */
export function livePortView(live: TcpMapping): ProjectedCube["ports"][number] {
  return { id: live.id, cubePort: live.cubePort, label: live.label, udp: live.udp, allow: sortedOrNull(live.allow) ?? [] };
}

export function desiredPortView(spec: DesiredPortSpec, live?: TcpMapping): View {
  return {
    id: null,
    cubePort: spec.cubePort,
    label: spec.label ?? live?.label ?? null,
    udp: spec.udp,
    allow: sortedOrNull(spec.allow) ?? [],
  };
}

/** Every difference forces a replacement; the label counts only when declared. */
export function portFieldChanges(spec: DesiredPortSpec, live: TcpMapping): FieldChange[] {
  const changes: FieldChange[] = [];
  if (live.cubePort !== spec.cubePort) changes.push(fieldChange("cubePort", live.cubePort, spec.cubePort, true));
  if (live.udp !== spec.udp) changes.push(fieldChange("udp", live.udp, spec.udp, true));
  if (!sameSet(live.allow, spec.allow))
    changes.push(fieldChange("allow", sortedOrNull(live.allow) ?? [], sortedOrNull(spec.allow) ?? [], true));
  if (spec.label !== undefined && (live.label ?? "") !== spec.label) changes.push(fieldChange("label", live.label, spec.label, true));
  return changes;
}

export function createPortStep(address: string, cube: CubeRef, spec: DesiredPortSpec): Step {
  return { op: "create-port", address, cube, body: { ...spec, allow: [...spec.allow] } };
}

function deletePortStep(address: string, cubeName: string, live: TcpMapping): Step {
  return { op: "delete-port", address, cube: { cubeName, cubeId: live.cubeId }, mappingId: live.id };
}

export function planPort(input: PortPlanInput): ResourcePlan {
  const { spec, live, cube } = input;
  const address = portAddress(input.cubeAddress, spec?.cubePort ?? live?.cubePort ?? 0);
  const base: ChangeBase = { address, kind: "port", cubeName: cube.cubeName, id: live?.id ?? null };
  if (spec && !live) return createdPlan(base, desiredPortView(spec), createPortStep(address, cube, spec));
  if (!spec && live) return deletedPlan(base, livePortView(live), deletePortStep(address, cube.cubeName, live), input.cubeDeleted);
  if (!spec || !live) throw new Error("planPort needs a desired or a live port");
  const before = livePortView(live);
  const move = cubeMoveChange(live.cubeId, cube, input.cubeDeleted);
  const changes = move ? [move, ...portFieldChanges(spec, live)] : portFieldChanges(spec, live);
  if (changes.length === 0) return { change: resourceChange(base, "noop", before, before, changes), steps: [] };
  const steps = input.cubeDeleted ? [] : [deletePortStep(address, cube.cubeName, live)];
  steps.push(createPortStep(address, cube, spec));
  return { change: resourceChange(base, "delete-then-create", before, desiredPortView(spec, live), changes), steps };
}
