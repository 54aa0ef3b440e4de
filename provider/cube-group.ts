/**
 * The CubeGroup resource: a group of replicas as ONE Pulumi resource, its inputs the file's group entry (name, replicas, the cube's spec, rollout).
 * Every method goes through the engine's own flow (normalize → observe → diff → apply), so a change that replaces members runs as the CLI's
 * rollout does, batch by batch inside this resource's update; there is no second rollout here.
 */
import type { CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from "@pulumi/pulumi/dynamic/index.js";
import * as z from "zod/mini";
import { DesiredStateError, normalize } from "../desired/index.js";
import { formatIssuePath } from "../schema/issue-path.js";
import {
  apply,
  diff,
  sameValue,
  memberIndex,
  observe,
  type DesiredState,
  type Plan,
  type ResourceChange,
  type StepOutcome,
} from "../engine/index.js";
import { API_VERSION, DesiredCubeInput, MAX_REPLICAS } from "../schema/desired.js";
import { containsUnknown, userInputs, type CheckFailure } from "./check.js";
import { execContext } from "./steps.js";
import { apiClient } from "./settings.js";
import type { CubeGroupMemberOutput as CubeGroupMember } from "./types.js";
import { digestMatches, saltedDigestOrNull, type Props } from "./values.js";

/** The file's group entry, as inputs: files are the program's to read, a pinned id and lifecycle are Pulumi's own options. */
export const CubeGroupInputSchema = z.extend(
  z.omit(DesiredCubeInput, { id: true, sshPublicKeyFile: true, userDataFile: true, lifecycle: true }),
  {
    replicas: z.number().check(z.int(), z.minimum(1), z.maximum(MAX_REPLICAS)),
  },
);
type GroupInputs = z.infer<typeof CubeGroupInputSchema>;

/** Where each input is in the desired-state document the group is normalized as. */
const ENTRY_PATH = ["cubes", 0] as const;

export async function checkCubeGroup(news: Props): Promise<CheckResult> {
  const inputs = Object.fromEntries(Object.entries(userInputs(news)).filter(([, value]) => value !== null));
  if (containsUnknown(inputs)) return { inputs };
  const parsed = CubeGroupInputSchema.safeParse(inputs);
  if (!parsed.success) return { inputs, failures: parsed.error.issues.map(failureOf(inputs)) };
  try {
    desiredOf(parsed.data);
  } catch (error) {
    if (!(error instanceof DesiredStateError)) throw error;
    return { inputs, failures: error.issues.map((issue) => ({ property: inputPath(issue.path), reason: issue.message })) };
  }
  return { inputs };
}

const failureOf =
  (inputs: Props) =>
  (issue: z.core.$ZodIssue): CheckFailure => {
    const property = formatIssuePath(issue.path);
    const missing = issue.code === "invalid_type" && issue.path.length === 1 && inputs[String(issue.path[0])] === undefined;
    return { property, reason: missing ? `${property} is required` : issue.message };
  };

/** ["cubes", 0, "domains", 1, "hostname"] → "domains[1].hostname": the resource's input, not the file's line. */
function inputPath(path: readonly (string | number)[]): string {
  const own = path[0] === ENTRY_PATH[0] && path[1] === ENTRY_PATH[1] ? path.slice(2) : path;
  return own.length === 0 ? "name" : formatIssuePath(own);
}

/** The inputs as a one-entry desired-state document, normalized as the CLI normalizes a file. */
function desiredOf(inputs: GroupInputs): DesiredState {
  const document = {
    apiVersion: API_VERSION,
    prune: false,
    cubes: [{ ...inputs, domains: inputs.domains ?? [], ports: inputs.ports ?? [], lifecycle: { allowReplace: true, ignoreChanges: [] } }],
  };
  return normalize(document as Parameters<typeof normalize>[0], {
    readTextFile: () => {
      throw new Error("a CubeGroup takes its values inline: read the file in the program");
    },
  });
}

/** What outputs keep of the inputs: all but userData, kept as a salted digest. */
function echoOf(inputs: Props): Props {
  const { userData, ...rest } = inputs;
  return { ...rest, userDataDigest: saltedDigestOrNull(typeof userData === "string" ? userData : undefined) };
}

/** Compares the new inputs with those the outputs echo: a rename is another group; anything else is an update (a rollout where it replaces members). */
export async function diffCubeGroup(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  const inputs = userInputs(news);
  const changed: string[] = [];
  for (const key of new Set([...Object.keys(inputs), ...Object.keys(olds)])) {
    if (key === "members" || key === "userDataDigest" || key === "__provider") continue;
    if (key === "userData") continue;
    if (!sameValue(inputs[key], olds[key])) changed.push(key);
  }
  const digest = typeof olds.userDataDigest === "string" ? olds.userDataDigest : null;
  const userData = typeof inputs.userData === "string" ? inputs.userData : null;
  if (digest === null ? userData !== null : userData === null || !digestMatches(digest, userData)) changed.push("userData");
  if (changed.length === 0) return { changes: false };
  if (changed.includes("name")) return { changes: true, replaces: ["name"], deleteBeforeReplace: true };
  return { changes: true };
}

export async function createCubeGroup(news: Props): Promise<CreateResult> {
  const inputs = CubeGroupInputSchema.parse(userInputs(news));
  const members = await converge(inputs);
  return { id: inputs.name, outs: { ...echoOf(userInputs(news)), members } };
}

export async function updateCubeGroup(_id: string, _olds: Props, news: Props): Promise<UpdateResult> {
  const inputs = CubeGroupInputSchema.parse(userInputs(news));
  const members = await converge(inputs);
  return { outs: { ...echoOf(userInputs(news)), members } };
}

export async function readCubeGroup(id: string, props: Props | undefined): Promise<ReadResult> {
  const replicas = typeof props?.replicas === "number" ? props.replicas : 0;
  const members = await liveMembers(id);
  if (members.length === 0) return {};
  const { members: _old, ...echo } = props ?? {};
  return { id, props: { ...echo, members: replicas > 0 ? members.filter((member) => member.index <= replicas) : members } };
}

/** Deletes every member (and any member a smaller count left over); a protected one stops it, named with the input to change. */
export async function deleteCubeGroup(id: string, props: Props): Promise<void> {
  const replicas = typeof props.replicas === "number" ? props.replicas : 0;
  const client = apiClient();
  const ctx = await execContext(client);
  const observed = await observe(client, { cubeNames: (await liveMembers(id)).map((member) => member.name) });
  const desired: DesiredState = { prune: true, cubes: [], groups: [{ name: id, replicas: 0 }], allowEmpty: true };
  const plan = diff(desired, observed, { prune: true, targets: [id], allowReplace: true });
  requireUnblocked(plan, id, replicas);
  const result = await apply(plan, { ...ctx, desired });
  requireDone(result.outcomes);
}

/** Observes the group's members, plans the change as the CLI would (rollout batches included) and carries it out; returns the members after. */
async function converge(inputs: GroupInputs): Promise<CubeGroupMember[]> {
  const desired = desiredOf(inputs);
  const client = apiClient();
  const ctx = await execContext(client, { secrets: process.env });
  const names = new Set([...desired.cubes.map((cube) => cube.name), ...(await liveMembers(inputs.name)).map((member) => member.name)]);
  const observed = await observe(client, { cubeNames: [...names] });
  const plan = diff(desired, observed, { prune: false, targets: [inputs.name], allowReplace: true });
  requireUnblocked(plan, inputs.name, inputs.replicas);
  const result = await apply(plan, { ...ctx, desired });
  requireDone(result.outcomes);
  return (await liveMembers(inputs.name)).filter((member) => member.index <= inputs.replicas);
}

async function liveMembers(group: string): Promise<CubeGroupMember[]> {
  const members: CubeGroupMember[] = [];
  for (const cube of await apiClient().listCubes()) {
    const index = memberIndex(group, cube.name);
    if (index === undefined || cube.state === "deleted") continue;
    members.push({ name: cube.name, index, cubeId: cube.id, state: cube.state, image: cube.image, publicIpv4: cube.publicIpv4 ?? null });
  }
  return members.sort((a, b) => a.index - b.index);
}

/** A blocked change (a protected member the change would delete or replace) refuses the whole update before anything is sent. */
function requireUnblocked(plan: Plan, group: string, replicas: number): void {
  const blocked = plan.changes.filter(
    (change): change is ResourceChange & { blocked: NonNullable<ResourceChange["blocked"]> } => change.blocked !== undefined,
  );
  if (blocked.length === 0) return;
  const lines = blocked.map((change) =>
    change.blocked.code === "termination_protected"
      ? `member ${change.cubeName} has terminationProtection on: set terminationProtection: false on CubeGroup "${group}" (replicas: ${replicas}) and run pulumi up, then make the change`
      : `member ${change.cubeName}: ${change.blocked.reason}`,
  );
  throw new Error(`CubeGroup "${group}" was not changed: ${lines.join("; ")}. Nothing was sent.`);
}

/** The first failed step (a failed rollout names the batch, the member, the check and what was put back) fails the resource. */
function requireDone(outcomes: readonly StepOutcome[]): void {
  const failed = outcomes.filter((outcome) => outcome.status === "failed");
  const last = failed.find((outcome) => outcome.step.op === "rollout-batch") ?? failed[0];
  if (last) throw new Error(last.error?.message ?? `${last.step.op} ${last.step.address} failed`);
}
