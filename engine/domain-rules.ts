/** Diff rules of one custom domain (identity: hostname within its cube). Shared by the fleet diff and the Pulumi Domain resource. */
import type { Domain } from "../client/api.js";
import { DOMAIN_DECLARED_SETTINGS } from "../schema/common.js";
import { domainAddress } from "./address.js";
import { createdPlan, cubeMoveChange, deletedPlan, fieldChange, resourceChange } from "./change.js";
import type { ChangeBase, ResourcePlan, View } from "./change.js";
import { SENSITIVE, sameSet, sameValue, sortedOrNull } from "./compare.js";
import type { CubeRef, DesiredDomainSpec, FieldChange, Step } from "./types.js";

type DomainSettingKey = keyof DesiredDomainSpec["settings"];

/** Settings whose lists are sets of CIDRs: order does not matter. */
const SET_SETTINGS: readonly DomainSettingKey[] = ["ipAllowList", "ipDenyList"];

export interface DomainPlanInput {
  cubeAddress: string;
  /** The cube the domain belongs to after the apply (cubeId null when the apply creates it). */
  cube: CubeRef;
  spec?: DesiredDomainSpec;
  live?: Domain;
  /** The cube is deleted by this apply (replacement or prune): its live domains go with it, no detach is sent. */
  cubeDeleted?: boolean;
  /** Pulumi: the password input changed since the last apply (the API never shows it). */
  passwordChanged?: boolean;
}

export function sameDomainSetting(key: DomainSettingKey, declared: unknown, live: unknown): boolean {
  if (SET_SETTINGS.includes(key)) return sameSet(declared as string[] | null, live as string[] | null);
  return sameValue(declared, live);
}

/** Declared settings that differ from the live domain (undeclared settings are not managed). */
export function domainSettingChanges(spec: DesiredDomainSpec, live: Domain): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [key, declared] of Object.entries(spec.settings) as [DomainSettingKey, unknown][]) {
    if (declared === undefined) continue;
    const current = (live as Record<string, unknown>)[key];
    if (!sameDomainSetting(key, declared, current)) changes.push(fieldChange(`settings.${key}`, current, declared));
  }
  return changes;
}

export function liveDomainView(live: Domain): View {
  const view: View = { id: live.id, hostname: live.hostname, port: live.port };
  const settings: View = {};
  for (const key of DOMAIN_DECLARED_SETTINGS) {
    if (live[key] !== undefined) settings[key] = SET_SETTINGS.includes(key) ? sortedOrNull(live[key] as string[] | null) : live[key];
  }
  view.settings = settings;
  return view;
}

/** The desired view; with a live domain, undeclared settings keep their live values. */
export function desiredDomainView(spec: DesiredDomainSpec, live?: Domain): View {
  const base = live ? liveDomainView(live) : { id: null, settings: {} };
  const settings: View = { ...(base.settings as View) };
  for (const [key, value] of Object.entries(spec.settings) as [DomainSettingKey, unknown][]) {
    settings[key] = SET_SETTINGS.includes(key) ? sortedOrNull(value as string[] | null) : value;
  }
  if (spec.basicAuthPassword) settings.basicAuthPassword = SENSITIVE;
  return { ...base, hostname: spec.hostname, port: spec.port, settings };
}

export function attachDomainStep(address: string, cube: CubeRef, spec: DesiredDomainSpec): Step {
  const step: Step = { op: "attach-domain", address, cube, body: { hostname: spec.hostname, port: spec.port, ...spec.settings } };
  if (spec.basicAuthPassword) step.basicAuthPassword = { ...spec.basicAuthPassword };
  return step;
}

function detachDomainStep(address: string, cubeName: string, live: Domain): Step {
  return { op: "detach-domain", address, cube: { cubeName, cubeId: live.cubeId }, domainId: live.id };
}

/** Only the differing settings; the password goes along whenever the user is patched (or the password changed). */
function patchDomainStep(
  address: string,
  cube: CubeRef,
  spec: DesiredDomainSpec,
  live: Domain,
  changes: FieldChange[],
  passwordChanged: boolean,
): Step | undefined {
  const body: Record<string, unknown> = {};
  for (const change of changes) {
    if (change.path.startsWith("settings.")) body[change.path.slice("settings.".length)] = change.after;
  }
  const userPatched = "basicAuthUser" in body && body.basicAuthUser !== null;
  const sendPassword = spec.basicAuthPassword !== undefined && (userPatched || passwordChanged);
  if (sendPassword && !("basicAuthUser" in body) && spec.settings.basicAuthUser !== undefined)
    body.basicAuthUser = spec.settings.basicAuthUser;
  if (Object.keys(body).length === 0 && !sendPassword) return undefined;
  const step: Step = { op: "patch-domain", address, cube, domainId: live.id, body };
  if (sendPassword && spec.basicAuthPassword) step.basicAuthPassword = { ...spec.basicAuthPassword };
  return step;
}

export function planDomain(input: DomainPlanInput): ResourcePlan {
  const { spec, live, cube } = input;
  const hostname = spec?.hostname ?? live?.hostname ?? "";
  const address = domainAddress(input.cubeAddress, hostname);
  const base: ChangeBase = { address, kind: "domain", cubeName: cube.cubeName, id: live?.id ?? null };
  if (spec && !live) return createdPlan(base, desiredDomainView(spec), attachDomainStep(address, cube, spec));
  if (!spec && live) return deletedPlan(base, liveDomainView(live), detachDomainStep(address, cube.cubeName, live), input.cubeDeleted);
  if (!spec || !live) throw new Error("planDomain needs a desired or a live domain");
  return planExistingDomain(input, spec, live, address, base);
}

function planExistingDomain(
  input: DomainPlanInput,
  spec: DesiredDomainSpec,
  live: Domain,
  address: string,
  base: ChangeBase,
): ResourcePlan {
  const before = liveDomainView(live);
  // Built only for a change that shows it (a noop's after is its before: most of a large plan).
  const after = (): View => desiredDomainView(spec, live);
  const replaceChanges: FieldChange[] = [];
  if (live.hostname !== spec.hostname) replaceChanges.push(fieldChange("hostname", live.hostname, spec.hostname, true));
  if (live.port !== spec.port) replaceChanges.push(fieldChange("port", live.port, spec.port, true));
  const move = cubeMoveChange(live.cubeId, input.cube, input.cubeDeleted);
  if (move) replaceChanges.push(move);
  const settingChanges = domainSettingChanges(spec, live);
  if (replaceChanges.length > 0) {
    const changes = [...replaceChanges, ...settingChanges];
    const steps = input.cubeDeleted ? [] : [detachDomainStep(address, input.cube.cubeName, live)];
    steps.push(attachDomainStep(address, input.cube, spec));
    return { change: resourceChange(base, "delete-then-create", before, { ...after(), id: null }, changes), steps };
  }
  const passwordChanged = input.passwordChanged === true && spec.basicAuthPassword !== undefined;
  const changes = passwordChanged ? [...settingChanges, fieldChange("settings.basicAuthPassword", SENSITIVE, SENSITIVE)] : settingChanges;
  const patch = patchDomainStep(address, input.cube, spec, live, settingChanges, passwordChanged);
  const action = changes.length > 0 ? "update" : "noop";
  return { change: resourceChange(base, action, before, action === "noop" ? before : after(), changes), steps: patch ? [patch] : [] };
}
