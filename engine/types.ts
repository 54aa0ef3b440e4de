/**
 * The engine's data model. CONTRACT: reconciler/ and provider/ code against these types. Flow: DesiredState (normalized file
 * or Pulumi inputs) + ObservedState (read through the client) → diff → Plan (ResourceChanges, ordered Steps) → apply.
 */
import type { AttachDomainRequest, CreateTcpMappingRequest, Domain, TcpMapping } from "../client/api.js";
import type { CreateCubeRequest, CreateWebhookRequest, Cube, DnsRecord, PatchDomainRequest, Webhook } from "../schema/index.js";
import type { DesiredPort, IGNORABLE_FIELDS, Power } from "../schema/desired.js";
import type { Enforcement, PolicyRule } from "../schema/policy.js";
import type { PreviewBlock } from "../schema/preview.js";

/** A secret is referenced by the name of the environment variable that holds it; plans keep only the name. */
export interface SecretRef {
  env: string;
}

export interface DesiredDomainSpec {
  hostname: string;
  port: number;
  /** Only the settings the user declared; undeclared settings are not managed. */
  settings: Omit<PatchDomainRequest, "basicAuthPassword" | "confirmMixedProxyProtocol">;
  basicAuthPassword?: SecretRef;
}

/** A published port as the file declares it: an undeclared label is not managed; `allow` is compared as a set. */
export type DesiredPortSpec = DesiredPort;

export type IgnorableField = (typeof IGNORABLE_FIELDS)[number];

/** What identifies a declared cube (identity.ts). */
export type DeclaredCube = Pick<DesiredCubeSpec, "name" | "id">;

export interface DesiredCubeSpec {
  name: string;
  /** Pins the live cube by id. */
  id?: string;
  image: string;
  region?: string;
  resources: { vcpu: number; ramGb: number; diskGb: number };
  sshPublicKey: string;
  userData?: string;
  /** undefined: not managed (left as it is live; API default on create). */
  terminationProtection?: boolean;
  power?: Power;
  sshPort?: number;
  /** undefined: sub-resources of this kind are not managed (the Pulumi Cube resource). */
  domains?: DesiredDomainSpec[];
  ports?: DesiredPortSpec[];
  lifecycle: { allowReplace: boolean; ignoreChanges: IgnorableField[] };
  /** A member of a group of replicas (`replicas: N` on an entry): the entry's name and this member's index (1-based). */
  group?: GroupMembership;
}

export interface GroupMembership {
  group: string;
  index: number;
}

/** A group of replicas: the entry `name` with `replicas: N` declares members NAME-1 … NAME-N. */
export interface DesiredGroupSpec {
  name: string;
  replicas: number;
  /** How a change that replaces members is carried out; undefined: all at once, in the plan's usual order. */
  rollout?: RolloutSpec;
}

export type HealthCheckSpec = { kind: "http"; url: string; expectStatus: number } | { kind: "tcp"; port: number } | { kind: "running" };

export interface RolloutSpec {
  /** Members replaced (or failing their check) at once. */
  maxUnavailable: number;
  /** Members replaced first, on their own, before the others. */
  canary: number;
  healthCheck: HealthCheckSpec;
  /** The check must pass continuously this long before a batch counts as healthy. */
  healthyForMs: number;
  /** A batch's members must be healthy within this long. */
  deadlineMs: number;
  /** On a failed check: stop, and recreate the failed members from the spec that was healthy. */
  autoRevert: boolean;
}

export interface DesiredWebhookSpec {
  url: string;
  /** Compared as a set. */
  events: string[];
  /** undefined: not managed. */
  description?: string;
  /** As the file names it (plans show it). */
  secretFile: string;
  /** Where the executor writes the secret: secretFile resolved against the file's directory. */
  secretPath: string;
}

export interface DesiredState {
  spaceId?: string;
  prune: boolean;
  /** Pruning when no cube is declared: only with this set (an empty source never prunes by accident). */
  allowEmpty?: boolean;
  cubes: DesiredCubeSpec[];
  /** Cubes a --target leaves out, by identity only (not validated): they still claim their live cubes, which are not unmanaged. */
  untargeted?: DeclaredCube[];
  /** undefined: webhooks are not managed (not observed, reported or pruned). */
  webhooks?: DesiredWebhookSpec[];
  /** Kinds of warning the file silences (`warnings: { ignore: [...] }`); the engine ignores it. */
  ignoreWarnings?: string[];
  /** A monthly ceiling in the API's currency: apply refuses a change that adds cost above it. */
  budget?: Budget;
  /** Policy rules the fleet file adds (`policies:`); a policy file's rules come from elsewhere (engine/policy.ts). */
  policies?: PolicyRule[];
  /** Groups of replicas, in file order; their members are in `cubes`. */
  groups?: DesiredGroupSpec[];
  /** The file's `preview:` block (engine/preview.ts makes a preview's desired state of it); plan and apply ignore it. */
  preview?: PreviewBlock;
}

export interface ObservedCube {
  cube: Cube;
  domains: Domain[];
  /** Includes the SSH mapping (isSsh). */
  tcpMappings: TcpMapping[];
}

export interface ObservedState {
  spaceId: string;
  cubes: ObservedCube[];
  /** The space's webhook endpoints; read only when the desired state manages webhooks. */
  webhooks?: Webhook[];
  /** API reads it took (for reports and benchmarks). */
  reads: number;
  observedAt: string;
}

export type Action = "noop" | "create" | "update" | "delete" | "delete-then-create" | "create-then-delete";
export const isReplace = (action: Action): boolean => action === "delete-then-create" || action === "create-then-delete";

export type ResourceKind = "cube" | "domain" | "port" | "webhook";

export interface FieldChange {
  /** Dotted path, e.g. "resources.vcpu", "settings.ipAllowList", "power". */
  path: string;
  before: unknown;
  after: unknown;
  forcesReplace: boolean;
}

export type BlockCode = "termination_protected" | "replace_not_allowed" | "ambiguous_name" | "empty_source" | "policy_violation";

export interface Blocked {
  code: BlockCode;
  /** One line a person can act on, e.g. how to turn the flag off. */
  reason: string;
}

export interface ResourceChange {
  /** "cube/web-1", "cube/web-1/domain/app.example.com", "cube/web-1/port/5432" */
  address: string;
  kind: ResourceKind;
  cubeName: string;
  /** Live id when the resource exists. */
  id: string | null;
  action: Action;
  /** Display only (no secrets): the live and desired views. Absent on a plain noop (they would be equal; engine/change.ts withoutNoopBodies). */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  changes: FieldChange[];
  blocked?: Blocked;
  /** A cube of the space that the desired state does not declare. */
  unmanaged?: boolean;
  /** The group of replicas this change belongs to (a member, its domains and ports, or a member scaled away). */
  group?: string;
}

/** A group of replicas as the plan sees it. */
export interface PlanGroup {
  name: string;
  /** Members the file declares (NAME-1 … NAME-replicas). */
  replicas: number;
  /** Members live before the change (by name). */
  live: number;
  /** Members this change replaces. */
  replacing: number;
  /** Set when the change replaces more than half the group at once without a rollout. */
  warning?: string;
  /** The rollout the members' replacements follow. */
  rollout?: RolloutSpec & { batches: number };
}

/** A reference to a cube that may not exist yet at plan time (created earlier in the same apply). */
export interface CubeRef {
  cubeName: string;
  /** Known when the cube exists at plan time. */
  cubeId: string | null;
}

/** One API mutation (or a wait) that the executors carry out. Executors read only `op` and its data. */
export type Step =
  | { op: "create-cube"; address: string; cube: CubeRef; body: CreateCubeRequest }
  | { op: "delete-cube"; address: string; cube: CubeRef & { cubeId: string } }
  | { op: "wait-deleted"; address: string; cube: CubeRef & { cubeId: string } }
  | { op: "set-protection"; address: string; cube: CubeRef; value: boolean }
  | { op: "power-off"; address: string; cube: CubeRef }
  | { op: "wake"; address: string; cube: CubeRef }
  | { op: "wait-running"; address: string; cube: CubeRef }
  | { op: "set-ssh-port"; address: string; cube: CubeRef; cubePort: number }
  | {
      op: "attach-domain";
      address: string;
      cube: CubeRef;
      body: Omit<AttachDomainRequest, "basicAuthPassword">;
      basicAuthPassword?: SecretRef;
    }
  | {
      op: "patch-domain";
      address: string;
      cube: CubeRef;
      domainId: string;
      body: Omit<PatchDomainRequest, "basicAuthPassword">;
      basicAuthPassword?: SecretRef;
    }
  | { op: "detach-domain"; address: string; cube: CubeRef; domainId: string }
  | { op: "create-port"; address: string; cube: CubeRef; body: CreateTcpMappingRequest }
  | { op: "delete-port"; address: string; cube: CubeRef; mappingId: string }
  /** The secret the API returns once is handed to ExecContext.writeWebhookSecret (the file at secretPath), never to the plan. */
  | { op: "create-webhook"; address: string; body: CreateWebhookRequest; secretFile: string; secretPath: string }
  | { op: "delete-webhook"; address: string; webhookId: string }
  /** Members of a group replaced together (at most maxUnavailable), then gated by their health check (rollout.ts). */
  | RolloutBatchStep;

/** A member's part of a rollout batch: the steps that replace it, and those that put it back on its last healthy spec. */
export interface RolloutMember {
  cubeName: string;
  index: number;
  address: string;
  /** The first domain's hostname (the health check's {hostname}). */
  hostname?: string;
  steps: Step[];
  /** From the create on, with the spec the member had before (the API cannot show a key or userData: those are the file's). */
  revert: Step[];
  /** What the member ran before, which `revert` creates again. */
  from: RolloutFrom;
  /** A power change in place (no new cube): the batch stops or wakes the member, and `revert` is the opposite power step. */
  power?: "power-off" | "wake";
}

/** The part of a member's spec a replacement changes, as it was before the rollout (the live cube's). */
export interface RolloutFrom {
  image: string;
  resources: { vcpu: number; ramGb: number; diskGb: number };
  region?: string;
}

/** A batch of a rollout under way, as journalled: a rerun after a crash resumes with these members first, gated, revertible. */
export interface RolloutRecord {
  group: string;
  batch: number;
  phase: "replacing" | "checking" | "healthy" | "failed" | "reverted";
  members: { name: string; index: number; from: RolloutFrom }[];
}

export interface RolloutBatchStep {
  op: "rollout-batch";
  /** cube/web[1..4] */
  address: string;
  group: string;
  /** 1-based; `batches` in all. */
  batch: number;
  batches: number;
  canary: boolean;
  members: RolloutMember[];
  rollout: RolloutSpec;
}

export type StepOp = Step["op"];
export const WAIT_OPS: readonly StepOp[] = ["wait-running", "wait-deleted"];
export const isMutation = (step: Step): boolean => !WAIT_OPS.includes(step.op);

/** The API mutations a step sends when it goes as planned (a rollout batch: its members' steps). */
export const mutationsOf = (step: Step): number =>
  step.op === "rollout-batch"
    ? step.members.reduce((sum, member) => sum + member.steps.filter(isMutation).length, 0)
    : isMutation(step)
      ? 1
      : 0;

/** The steps, a rollout batch's members' steps in its place. */
export const flatSteps = (steps: readonly Step[]): Step[] =>
  steps.flatMap((step) => (step.op === "rollout-batch" ? step.members.flatMap((member) => member.steps) : [step]));

export interface PlanSummary {
  add: number;
  change: number;
  destroy: number;
  /** Replacements (each also counts once in add and once in destroy). */
  replace: number;
  blocked: number;
  unmanaged: number;
  /** API mutations the steps will send (waits excluded). */
  mutations: number;
  /** How long the mutation rate limit makes those mutations take at least, in seconds; with rollout batches, the whole rollout played out (rollout-plan.ts rolloutEstimate). */
  estimatedSeconds: number;
  /** With rollout batches: the part of estimatedSeconds that is their waits (deletion, boot, healthyFor). */
  rolloutWaitSeconds?: number;
}

/**
 * 4: compact JSON (its content digest is of that text); 3: policy violations already live are grouped in `policy.existing`; 2: steps name
 * fields as the file does (`hostname`, `udp`, `allow`); 1 used the API's names.
 */
export const PLAN_FORMAT = 4;

export interface Plan {
  formatVersion: typeof PLAN_FORMAT;
  createdAt: string;
  spaceId: string;
  /** Complete: one entry per address in desired ∪ observed, noop included. */
  changes: ResourceChange[];
  /** Ordered mutations; blocked changes contribute none. */
  steps: Step[];
  summary: PlanSummary;
  /** Digest of the observed state the plan was computed from; apply refuses a saved plan when it changed. Made when first read (buildPlan). */
  priorStateDigest?: string;
  /** The projection the digest was computed from, so a stale plan can say what changed. Made when first read (buildPlan). */
  priorState?: StateProjection;
  options: PlanOptions;
  /** The commit the desired state was loaded from, when it came from a git repository. */
  source?: SourceRevision;
  /** What the plan does to the fleet's monthly cost (cost.ts); set by the CLI from the live prices. */
  cost?: PlanCost;
  /** The policy rules checked on this plan and what they found (policy.ts); absent when no rule applies. */
  policy?: PolicyReport;
  /** The groups of replicas of the desired state (absent when it declares none). */
  groups?: PlanGroup[];
}

/** A violation the change makes (a create, an update, a replacement): a mandatory one blocks apply unless overridden. */
export interface PolicyViolation {
  rule: string;
  enforcement: Enforcement;
  /** The resource the rule judged ("cube/web", "cube/web/port/5432", "group/web", "webhook/…"), or "plan" for the change as a whole. */
  address: string;
  cubeName?: string;
  /** Which check of the rule found it ("deny.portsOpenToInternet", "max.vcpu", …). */
  check: string;
  /** What the rule saw (of the resource at `address`). */
  saw: string;
  /** How to make it pass. */
  fix: string;
  /** Where the rule is written. */
  source: string;
  /** An override let it pass for this apply. */
  overridden?: { reason: string };
}

/**
 * Violations already live that the change does not touch (a warning, never a block), one entry per rule, check and what it saw, with the
 * resources it saw it on: a fleet of 10,000 cubes can hold tens of thousands of them.
 */
export interface ExistingViolations {
  rule: string;
  enforcement: Enforcement;
  check: string;
  saw: string;
  fix: string;
  source: string;
  /** How many resources (addresses.length). */
  count: number;
  addresses: string[];
}

export interface PolicyOverride {
  rule: string;
  reason: string;
}

export interface PolicyReport {
  /** How many rules were checked. */
  rules: number;
  /** Those the change makes. */
  violations: PolicyViolation[];
  /** Those already live and untouched by the change, grouped (absent when none). */
  existing?: ExistingViolations[];
  /** Overrides asked for; each applies to the mandatory violations of its rule. */
  overrides?: PolicyOverride[];
}

/** Monthly, in the API's currency, rounded to cents; null: the cube is not there on that side. */
export interface CubeCost {
  name: string;
  before: number | null;
  after: number | null;
  delta: number;
}

export interface Budget {
  monthly: number;
}

export interface KnownCost {
  currency: string;
  hoursPerMonth: number;
  /** What a stopped cube is billed for: its disk (the note says billing is per runtime), else everything. */
  stoppedBills: "disk" | "all";
  /** The API's own words on billing. */
  note: string;
  /** The tiers the fleet after the change is billed at, and how many cubes fall in each. */
  tiers: { label: string; multiplier: number; cubes: number }[];
  before: number;
  after: number;
  delta: number;
  /** Every cube of the space before or after the change, by name; in a --target plan, the targeted cubes (the totals still count every cube). */
  cubes: CubeCost[];
  /** over: the change adds cost and the fleet ends above the budget; top: the cubes that add the most, by name. */
  budget?: Budget & { over: boolean; top?: string[] };
}

/** The prices could not be read or are implausible: the plan is complete without its cost. */
export interface UnknownCost {
  unknown: string;
  budget?: Budget;
  /** A budget is set and nothing allowed an unknown cost: the plan is refused like one over the budget. */
  blocked?: boolean;
}

export type PlanCost = KnownCost | UnknownCost;

/** Where a git-sourced desired state came from: shown in plan headers, JSON, logs and metrics. */
export interface SourceRevision {
  repo: string;
  /** The ref as asked for ("HEAD" when the remote's default branch). */
  ref: string;
  /** The full commit id. */
  revision: string;
  /** The file or directory inside the checkout. */
  path: string;
}

/** What a plan depends on of an observed state (no timestamps, no transient states); a --target plan's other cubes by identity only. */
export interface StateProjection {
  spaceId: string;
  cubes: (ProjectedCube | CubeIdentity)[];
  /** Present when the plan manages webhooks. */
  webhooks?: ProjectedWebhook[];
}

export type ProjectedWebhook = {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
};

/** A cube a --target plan does not plan: which cube it is, nothing of its state. */
export interface CubeIdentity {
  id: string;
  name: string;
}

export interface ProjectedCube {
  id: string;
  name: string;
  image: string;
  resources: { vcpu: number; ramGb: number; diskGb: number };
  region: string | null;
  terminationProtection: boolean;
  /** "running" | "stopped" | "error": the side of the power switch, not the transient state. */
  power: string;
  sshPort: number | null;
  domains: { id: string; hostname: string; port: number | null; settings: unknown }[];
  ports: { id: string; cubePort: number; label: string | null; udp: boolean; allow: string[] }[];
}

export interface PlanOptions {
  prune: boolean;
  allowReplace: boolean;
  /** Cube names; empty = all. */
  targets: string[];
  rateLimit: { limit: number; windowMs: number };
}

export interface StepOutcome {
  step: Step;
  status: "done" | "failed" | "skipped";
  /** `terminal`: running the step again cannot succeed (as the error said where it was raised). */
  error?: { code: string; message: string; terminal?: boolean };
  /** Id of what a create made. */
  createdId?: string;
  /** DNS records a domain attach returned. */
  records?: DnsRecord[];
  /** On a failed rollout batch's outcome: the members autoRevert put back on their last healthy spec (by name). */
  reverted?: string[];
}

export interface ApplyResult {
  outcomes: StepOutcome[];
  /** Blocked changes that were not tried. */
  blocked: ResourceChange[];
  /** The plan computed from a fresh observation after applying: converged when it has no changes. */
  after: Plan;
  converged: boolean;
  mutationsSent: number;
  /** The run was asked to stop: `after` is the plan as it was (nothing was read again). */
  stopped?: boolean;
}

/** Where create idempotency keys are written before the request (the CLI: a file under .cubeform/). */
export interface IdempotencyJournal {
  /**
   * The key for this create: a stored one when an earlier run wrote it, else `proposed` (a key derived from the create, the same
   * for every writer) or a new random one, written before returning.
   */
  keyFor(entry: { spaceId: string; address: string; bodyDigest: string }, proposed?: string): Promise<string>;
  /** Forget the entry once the create's response arrived. */
  settle(entry: { spaceId: string; address: string; bodyDigest: string }): Promise<void>;
  /** Whether an earlier run wrote a key for this create and never learnt its outcome. */
  pending?(entry: { spaceId: string; address: string; bodyDigest: string }): Promise<boolean>;
}

export type EngineLogger = (event: {
  type: "step-start" | "step-done" | "step-failed" | "wait" | "observe" | "rollout" | "note";
  address?: string;
  op?: StepOp;
  message?: string;
}) => void;
