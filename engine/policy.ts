/**
 * Policies judged on a plan (issue 36). Pure: rules + the desired state + what was observed + the plan → violations. A rule judges what the
 * change makes (a create, an update, a replacement); a violation the live resource already has and the change does not touch is `existing`:
 * a warning, never a block.
 */
import type { Domain, TcpMapping } from "../client/api.js";
import type { PolicyRule } from "../schema/policy.js";
import { cubeAddress, domainAddress, portAddress, webhookAddress } from "./address.js";
import {
  isReplace,
  type DesiredCubeSpec,
  type DesiredState,
  type ExistingViolations,
  type ObservedCube,
  type ObservedState,
  type Plan,
  type PolicyOverride,
  type PolicyReport,
  type PolicyViolation,
  type ResourceChange,
} from "./types.js";

export type { ExistingViolations, PolicyOverride, PolicyReport, PolicyViolation } from "./types.js";

export type { PolicyRule } from "../schema/policy.js";

/** A rule and where it was written (a policy file, or the fleet file's `policies:`). */
export interface SourcedRule {
  rule: PolicyRule;
  source: string;
}

/** A violation that stops an apply: mandatory (made by the change: a report's `violations`), not overridden. */
export const blocksApply = (v: PolicyViolation): boolean => v.enforcement === "mandatory" && v.overridden === undefined;

export const policyBlocks = (plan: Pick<Plan, "policy">): PolicyViolation[] => plan.policy?.violations.filter(blocksApply) ?? [];

/** What a rule looks at of one cube, on either side of the change. */
interface CubeSubject {
  name: string;
  image: string;
  region: string | null;
  resources: { vcpu: number; ramGb: number; diskGb: number };
  terminationProtection: boolean;
  ports: { cubePort: number; udp: boolean; allow: string[] }[];
  domains: { hostname: string; basicAuth: boolean; ipAllowList: string[] }[];
  /** Monthly, when the plan's cost is known. */
  monthlyCost?: number | null;
}

interface Finding {
  address: string;
  check: string;
  saw: string;
  fix: string;
}

/** One check of a rule on one cube, adding what it finds to `out` (no array per cube and check: a plan of 10,000 cubes makes 100,000 calls). */
type Check = (cube: CubeSubject, address: string, out: Finding[]) => void;

export interface PolicyInput {
  desired: DesiredState;
  observed: ObservedState;
  plan: Plan;
  overrides?: readonly PolicyOverride[];
}

export function evaluatePolicies(rules: readonly SourcedRule[], input: PolicyInput): PolicyReport {
  const found = new Found();
  // Each rule's matcher and checks are compiled once; a cube then costs one subject and the checks of the rules that match it.
  const compiled = rules.flatMap(({ rule, source }) => {
    const check = cubeCheck(rule);
    return check === undefined ? [] : [{ rule, source, matches: matchesEveryCube(rule) ? undefined : cubeMatcher(rule), check }];
  });
  // Read only for the findings of a cube the change touches: most plans touch few of their cubes.
  let byAddress: Map<string, ResourceChange> | undefined;
  const changeAt = (address: string): ResourceChange | undefined =>
    (byAddress ??= new Map(input.plan.changes.map((c) => [c.address, c]))).get(address);
  const specs = new Map(input.desired.cubes.map((spec) => [spec.name, spec]));
  const live = new Map(input.observed.cubes.map((o) => [o.cube.id, o]));
  const costs = cubeCosts(input.plan);
  // A cube whose change and sub-resources change nothing has, after the change, exactly what it has live: its findings are all existing.
  const changing = new Set<string>();
  for (const change of input.plan.changes) if (change.action !== "noop") changing.add(change.cubeName);
  let findings: Finding[] = [];
  for (const change of compiled.length === 0 ? [] : input.plan.changes) {
    if (change.kind !== "cube" || change.unmanaged || change.action === "delete") continue;
    const spec = specs.get(change.cubeName);
    if (spec === undefined) continue;
    const observed = change.id === null ? undefined : live.get(change.id);
    const made = change.action === "create" || isReplace(change.action);
    const cost = costs?.get(spec.name);
    const untouched = observed !== undefined && !changing.has(spec.name);
    const after = desiredSubject(spec, made ? undefined : observed, cost?.after);
    // Only a cube the change touches needs its live findings, to tell the ones it makes from those it keeps.
    const before = untouched || made || observed === undefined ? undefined : liveSubject(observed, cost?.before);
    for (const { rule, source, matches, check } of compiled) {
      if (matches !== undefined && !matches(spec.name)) continue;
      check(after, change.address, findings);
      if (findings.length === 0) continue;
      if (untouched) {
        // The common case of a large fleet: every finding is kept as it is live; the array is reused.
        for (const finding of findings) found.existing(rule, source, finding);
        findings.length = 0;
        continue;
      }
      const judged = findings;
      // A fresh array only after one was filled: most (cube, rule) pairs find nothing.
      findings = [];
      let seen: Set<string> | undefined;
      if (before !== undefined) {
        const previous: Finding[] = [];
        check(before, change.address, previous);
        seen = new Set(previous.map(keyOf));
      }
      for (const finding of judged) {
        const isNew = made || observed === undefined || isMade(changeAt(finding.address)) || !seen?.has(keyOf(finding));
        if (isNew) found.made(rule, source, finding, spec.name);
        else found.existing(rule, source, finding);
      }
    }
  }
  for (const { rule, source } of rules) {
    const matches = cubeMatcher(rule);
    replicaViolations(rule, source, matches, input, found);
    groupCostViolations(rule, source, matches, input, costs, found);
    webhookViolations(rule, source, input, changeAt, found);
    changeCostViolations(rule, source, input.plan, found);
  }
  return applyOverrides(found.report(rules.length), input.overrides);
}

/** What the checks found: the violations the change makes one by one, those it keeps grouped by rule, check and what was seen. */
class Found {
  private readonly violations: PolicyViolation[] = [];
  private readonly groups = new Map<PolicyRule, Map<string, ExistingViolations>>();

  made(rule: PolicyRule, source: string, f: Finding, cubeName?: string): void {
    this.violations.push(violation(rule, source, f, cubeName));
  }

  existing(rule: PolicyRule, source: string, f: Finding): void {
    let byWhat = this.groups.get(rule);
    if (byWhat === undefined) this.groups.set(rule, (byWhat = new Map()));
    const key = `${f.check}\0${f.saw}`;
    const group = byWhat.get(key);
    if (group !== undefined) {
      group.addresses.push(f.address);
      group.count++;
      return;
    }
    byWhat.set(key, {
      rule: rule.name,
      enforcement: rule.enforcement,
      check: f.check,
      saw: f.saw,
      fix: f.fix,
      source,
      count: 1,
      addresses: [f.address],
    });
  }

  add(rule: PolicyRule, source: string, f: Finding, isNew: boolean): void {
    if (isNew) this.made(rule, source, f);
    else this.existing(rule, source, f);
  }

  report(rules: number): PolicyReport {
    const existing = [...this.groups.values()].flatMap((byWhat) => [...byWhat.values()]);
    return { rules, violations: this.violations, ...(existing.length > 0 ? { existing } : {}) };
  }
}

/** A rule without names, groups or a preview setting judges every cube: no glob to test. */
const matchesEveryCube = (rule: PolicyRule): boolean =>
  rule.match?.names === undefined && rule.match?.groups === undefined && (rule.match?.previews ?? "include") === "include";

/** The report with each mandatory violation of an overridden rule, made by the change, let through with the override's reason. */
export function applyOverrides(report: PolicyReport, overrides: readonly PolicyOverride[] | undefined): PolicyReport {
  if (overrides === undefined || overrides.length === 0) return report;
  const reasons = new Map(overrides.map((o) => [o.rule, o.reason]));
  const violations = report.violations.map((v) => {
    const reason = reasons.get(v.rule);
    return reason !== undefined && v.enforcement === "mandatory" ? { ...v, overridden: { reason } } : v;
  });
  const recorded = [...(report.overrides ?? []).filter((o) => !reasons.has(o.rule)), ...overrides];
  return { ...report, violations, overrides: recorded };
}

const keyOf = (f: Finding): string => `${f.address}\0${f.check}`;
const isMade = (change: ResourceChange | undefined): boolean =>
  change !== undefined && (change.action === "create" || isReplace(change.action));

function violation(rule: PolicyRule, source: string, f: Finding, cubeName: string | undefined): PolicyViolation {
  const base = { rule: rule.name, enforcement: rule.enforcement, address: f.address };
  const rest = { check: f.check, saw: f.saw, fix: f.fix, source };
  return cubeName === undefined ? { ...base, ...rest } : { ...base, cubeName, ...rest };
}

// ---------------------------------------------------------------- matching

/** `*` any run of characters, `?` one; the rest literal. */
export function globPattern(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

const anyGlob = (globs: readonly string[] | undefined): ((text: string) => boolean) | undefined => {
  if (globs === undefined) return undefined;
  const patterns = globs.map(globPattern);
  return (text) => patterns.some((p) => p.test(text));
};

/** A preview cube's name ends in -pr-N (`cubeform preview up --id pr-N`). */
export const isPreviewName = (name: string): boolean => /-pr-\d+$/.test(name);

/** The group a replica belongs to: NAME of NAME-N. */
export const groupOf = (name: string): string | undefined => /^(.+)-\d+$/.exec(name)?.[1];

/** Whether a rule applies to a cube: any of its names or groups globs (every cube without either), and its preview setting. */
function cubeMatcher(rule: PolicyRule): (name: string) => boolean {
  const names = anyGlob(rule.match?.names);
  const groups = anyGlob(rule.match?.groups);
  const previews = rule.match?.previews ?? "include";
  return (name) => {
    if (previews !== "include" && isPreviewName(name) !== (previews === "only")) return false;
    if (names === undefined && groups === undefined) return true;
    const group = groupOf(name);
    return names?.(name) === true || (group !== undefined && groups?.(group) === true);
  };
}

// ---------------------------------------------------------------- subjects

function livePorts(mappings: readonly TcpMapping[]): CubeSubject["ports"] {
  return mappings.filter((m) => !m.isSsh).map((m) => ({ cubePort: m.cubePort, udp: m.udp, allow: m.allow ?? [] }));
}

function liveDomain(d: Domain): CubeSubject["domains"][number] {
  return {
    hostname: d.hostname,
    basicAuth: typeof d.basicAuthUser === "string" && d.basicAuthUser !== "",
    ipAllowList: d.ipAllowList ?? [],
  };
}

function liveSubject(o: ObservedCube, monthlyCost?: number | null): CubeSubject {
  const { cube } = o;
  const subject: CubeSubject = {
    name: cube.name,
    image: cube.image,
    region: cube.region ?? null,
    resources: cube.resources,
    terminationProtection: cube.terminationProtection,
    ports: livePorts(o.tcpMappings),
    domains: o.domains.map(liveDomain),
  };
  return withCost(subject, monthlyCost);
}

/** The monthly cost set only when known (an unknown one is judged apart); set, not spread: a subject is made for every cube. */
function withCost(subject: CubeSubject, monthlyCost: number | null | undefined): CubeSubject {
  if (monthlyCost !== undefined) subject.monthlyCost = monthlyCost;
  return subject;
}

/** The cube after the change: the declared values, the live ones where the file leaves a field unmanaged. */
function desiredSubject(spec: DesiredCubeSpec, live: ObservedCube | undefined, monthlyCost?: number | null): CubeSubject {
  const ignored = (field: string): boolean => live !== undefined && spec.lifecycle.ignoreChanges.includes(field as never);
  const domains =
    spec.domains === undefined || ignored("domains")
      ? (live?.domains ?? []).map(liveDomain)
      : spec.domains.map((d) => {
          const current = live?.domains.find((l) => l.hostname === d.hostname);
          const user = d.settings.basicAuthUser !== undefined ? d.settings.basicAuthUser : current?.basicAuthUser;
          const allowList = d.settings.ipAllowList !== undefined ? d.settings.ipAllowList : current?.ipAllowList;
          return { hostname: d.hostname, basicAuth: typeof user === "string" && user !== "", ipAllowList: allowList ?? [] };
        });
  const subject: CubeSubject = {
    name: spec.name,
    image: ignored("image") ? (live?.cube.image ?? spec.image) : spec.image,
    region: (ignored("region") ? live?.cube.region : undefined) ?? spec.region ?? live?.cube.region ?? null,
    resources: ignored("resources") && live ? live.cube.resources : spec.resources,
    terminationProtection:
      (ignored("terminationProtection") ? undefined : spec.terminationProtection) ?? live?.cube.terminationProtection ?? false,
    ports:
      spec.ports === undefined || ignored("ports")
        ? livePorts(live?.tcpMappings ?? [])
        : spec.ports.map((p) => ({ cubePort: p.cubePort, udp: p.udp, allow: p.allow })),
    domains,
  };
  return withCost(subject, monthlyCost);
}

function cubeCosts(plan: Plan): Map<string, { before: number | null; after: number | null }> | undefined {
  const cost = plan.cost;
  if (cost === undefined || !("cubes" in cost)) return undefined;
  return new Map(cost.cubes.map((c) => [c.name, { before: c.before, after: c.after }]));
}

// ---------------------------------------------------------------- checks of one cube

const OPEN = new Set(["0.0.0.0/0", "::/0"]);

/** The checks a rule makes on each cube it matches; undefined when it judges no cube (replicas, webhooks, the change's cost). */
function cubeCheck(rule: PolicyRule): Check | undefined {
  const checks: Check[] = [];
  const { deny, allowed, max } = rule;
  if (deny?.portsOpenToInternet) checks.push(portsOpen);
  if (deny?.udpPorts) checks.push(udpPorts);
  if (deny?.domainsWithoutAccessControl) checks.push(openDomains);
  if (allowed?.images) checks.push(allowedValue("image", allowed.images));
  if (allowed?.regions) checks.push(allowedValue("region", allowed.regions));
  if (max !== undefined) checks.push(...maxChecks(max));
  if (rule.require?.terminationProtection) checks.push(protectionRequired);
  if (checks.length === 0) return undefined;
  if (checks.length === 1) return checks[0];
  return (cube, address, out) => {
    for (const check of checks) check(cube, address, out);
  };
}

const OPEN_PORT_FIX = "list the addresses that may connect in the port's allow (e.g. allow: [203.0.113.0/24]), without 0.0.0.0/0 or ::/0";

const portsOpen: Check = (cube, address, out) => {
  for (const p of cube.ports) {
    if (p.allow.length > 0 && !p.allow.some((cidr) => OPEN.has(cidr))) continue;
    const saw =
      p.allow.length === 0
        ? `port ${p.cubePort} has no allow list: open to the whole internet`
        : `port ${p.cubePort} allows ${p.allow.filter((c) => OPEN.has(c)).join(", ")}: the whole internet`;
    out.push({ address: portAddress(address, p.cubePort), check: "deny.portsOpenToInternet", saw, fix: OPEN_PORT_FIX });
  }
};

const udpPorts: Check = (cube, address, out) => {
  for (const p of cube.ports) {
    if (p.udp)
      out.push({
        address: portAddress(address, p.cubePort),
        check: "deny.udpPorts",
        saw: `port ${p.cubePort} publishes UDP (udp: true, the default)`,
        fix: "set udp: false on the port",
      });
  }
};

const openDomains: Check = (cube, address, out) => {
  for (const d of cube.domains) {
    if (d.basicAuth || d.ipAllowList.length > 0) continue;
    out.push({
      address: domainAddress(address, d.hostname),
      check: "deny.domainsWithoutAccessControl",
      saw: "the domain has neither basic auth nor an IP allow list",
      fix: "set basicAuthUser and basicAuthPassword (${env:NAME}), or an ipAllowList, on the domain",
    });
  }
};

function allowedValue(field: "image" | "region", globs: readonly string[]): Check {
  const allows = anyGlob(globs) as (text: string) => boolean;
  const check = `allowed.${field}s`;
  const fix = `use an allowed ${field}: ${globs.join(", ")}`;
  return (cube, address, out) => {
    const value = cube[field];
    // A cube without a region is placed where the API decides: only a declared or live region is judged.
    if (value === null || allows(value)) return;
    out.push({ address, check, saw: `${field} ${value} is not allowed`, fix });
  };
}

const RESOURCE_FIELDS = ["vcpu", "ramGb", "diskGb"] as const;

function maxChecks(max: NonNullable<PolicyRule["max"]>): Check[] {
  const checks: Check[] = [];
  for (const field of RESOURCE_FIELDS) {
    const limit = max[field];
    if (limit === undefined) continue;
    const check = `max.${field}`;
    const fix = `set resources.${field} to ${limit} or less`;
    checks.push((cube, address, out) => {
      if (cube.resources[field] > limit)
        out.push({ address, check, saw: `resources.${field} is ${cube.resources[field]}, over the maximum of ${limit}`, fix });
    });
  }
  const perCube = max.monthlyCostPerCube;
  if (perCube !== undefined) {
    checks.push((cube, address, out) => {
      if (cube.monthlyCost === undefined)
        out.push({
          address,
          check: "max.monthlyCostPerCube",
          saw: "the cube's monthly cost is unknown (the prices could not be read)",
          fix: "run again when the prices can be read",
        });
      else if (cube.monthlyCost !== null && cube.monthlyCost > perCube) {
        out.push({
          address,
          check: "max.monthlyCostPerCube",
          saw: `the cube costs ${cube.monthlyCost.toFixed(2)} a month, over the maximum of ${perCube.toFixed(2)}`,
          fix: "give the cube fewer resources",
        });
      }
    });
  }
  return checks;
}

const protectionRequired: Check = (cube, address, out) => {
  if (!cube.terminationProtection)
    out.push({
      address,
      check: "require.terminationProtection",
      saw: "terminationProtection is off",
      fix: "set terminationProtection: true on the cube",
    });
};

// ---------------------------------------------------------------- checks beyond one cube

/** replicas bounds: the members of each group the rule matches, after the change (existing when the count is unchanged). */
function replicaViolations(rule: PolicyRule, source: string, matches: (name: string) => boolean, input: PolicyInput, found: Found): void {
  const bounds = rule.replicas;
  if (bounds === undefined) return;
  const count = (names: Iterable<string>): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const name of names) {
      const group = groupOf(name);
      if (group !== undefined && matches(name)) counts.set(group, (counts.get(group) ?? 0) + 1);
    }
    return counts;
  };
  const after = count(input.desired.cubes.map((c) => c.name));
  const before = count(input.observed.cubes.map((o) => o.cube.name));
  for (const [group, n] of after) {
    const low = bounds.min !== undefined && n < bounds.min;
    const high = bounds.max !== undefined && n > bounds.max;
    if (!low && !high) continue;
    const limit = low ? `at least ${bounds.min}` : `at most ${bounds.max}`;
    const finding = {
      address: `group/${group}`,
      check: low ? "replicas.min" : "replicas.max",
      saw: `group ${group} has ${n} ${n === 1 ? "member" : "members"}; the rule wants ${limit}`,
      fix: `declare ${limit} members (${group}-1 … ${group}-N)`,
    };
    found.add(rule, source, finding, before.get(group) !== n);
  }
}

/** max.monthlyCostPerGroup: the members of each group the rule matches, their monthly costs together after the change (existing when unchanged). */
function groupCostViolations(
  rule: PolicyRule,
  source: string,
  matches: (name: string) => boolean,
  input: PolicyInput,
  costs: ReturnType<typeof cubeCosts>,
  found: Found,
): void {
  const limit = rule.max?.monthlyCostPerGroup;
  if (limit === undefined || input.plan.cost === undefined) return;
  const groups = new Map<string, string[]>();
  for (const spec of input.desired.cubes) {
    const group = spec.group?.group;
    if (group !== undefined && matches(spec.name)) groups.set(group, [...(groups.get(group) ?? []), spec.name]);
  }
  for (const [group, members] of groups) {
    const base = { address: `group/${group}`, check: "max.monthlyCostPerGroup" };
    if (costs === undefined) {
      const saw = `the monthly cost of group ${group} is unknown (the prices could not be read)`;
      found.made(rule, source, { ...base, saw, fix: "run again when the prices can be read" });
      continue;
    }
    const sum = (side: "before" | "after"): number => members.reduce((total, name) => total + (costs.get(name)?.[side] ?? 0), 0);
    const after = sum("after");
    if (after <= limit) continue;
    const finding = {
      ...base,
      saw: `group ${group} (${members.length} ${members.length === 1 ? "member" : "members"}) costs ${after.toFixed(2)} a month, over the maximum of ${limit.toFixed(2)}`,
      fix: "declare fewer replicas, or give them fewer resources",
    };
    found.add(rule, source, finding, Math.abs(sum("before") - after) >= 0.005);
  }
}

function webhookViolations(
  rule: PolicyRule,
  source: string,
  input: PolicyInput,
  changeAt: (address: string) => ResourceChange | undefined,
  found: Found,
): void {
  const hosts = rule.allowed?.webhookHosts;
  if (hosts === undefined || input.desired.webhooks === undefined) return;
  const allows = anyGlob(hosts) as (text: string) => boolean;
  for (const webhook of input.desired.webhooks) {
    const host = hostOf(webhook.url);
    if (host !== undefined && allows(host)) continue;
    const address = webhookAddress(webhook.url);
    const finding = {
      address,
      check: "allowed.webhookHosts",
      saw: `webhook endpoint ${webhook.url} sends to ${host ?? "an unreadable host"}, not an allowed host`,
      fix: `send webhooks to an allowed host: ${hosts.join(", ")}`,
    };
    found.add(rule, source, finding, isMade(changeAt(address)));
  }
}

function hostOf(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).hostname : undefined;
}

/** max.monthlyCostIncrease: what the change adds to the fleet's monthly cost; unknown prices count as a violation (as a budget's do). */
function changeCostViolations(rule: PolicyRule, source: string, plan: Plan, found: Found): void {
  const limit = rule.max?.monthlyCostIncrease;
  if (limit === undefined || plan.cost === undefined) return;
  const cost = plan.cost;
  const base = { address: "plan", check: "max.monthlyCostIncrease" };
  if (!("delta" in cost)) {
    found.made(rule, source, {
      ...base,
      saw: `the cost of the change is unknown (${cost.unknown})`,
      fix: "run again when the prices can be read",
    });
    return;
  }
  if (cost.delta <= limit) return;
  const finding = {
    ...base,
    saw: `the change adds ${cost.delta.toFixed(2)} ${cost.currency} a month, over the maximum of ${limit.toFixed(2)}`,
    fix: "make a smaller change, or split it",
  };
  found.made(rule, source, finding);
}

// ---------------------------------------------------------------- one resource alone (the Pulumi provider's check)

/** What the Pulumi provider knows of a cube at check(): its own inputs, no plan and no live state. */
export interface CubeInputs {
  name: string;
  image: string;
  region?: string | null;
  resources: { vcpu: number; ramGb: number; diskGb: number };
  terminationProtection?: boolean;
}

const PORT_CHECKS = new Set(["deny.portsOpenToInternet", "deny.udpPorts"]);
const COST_CHECK = "max.monthlyCostPerCube";

/** The rules a cube's own inputs break (its cost, ports and domains are not known here). */
export function checkCubeInputs(rules: readonly SourcedRule[], cube: CubeInputs): PolicyViolation[] {
  const subject: CubeSubject = {
    name: cube.name,
    image: cube.image,
    region: cube.region ?? null,
    resources: cube.resources,
    terminationProtection: cube.terminationProtection ?? false,
    ports: [],
    domains: [],
  };
  return judgeAlone(
    rules,
    subject,
    cubeAddress(cube.name),
    (rule) => cubeMatcher(rule)(cube.name),
    (f) => f.check !== COST_CHECK,
  );
}

/** The rules a published port breaks on its own: those of rules that match every cube (a port alone does not know its cube's name). */
export function checkPortInputs(
  rules: readonly SourcedRule[],
  port: { cubePort: number; udp: boolean; allow: string[] },
): PolicyViolation[] {
  const subject: CubeSubject = {
    name: "",
    image: "",
    region: null,
    resources: { vcpu: 0, ramGb: 0, diskGb: 0 },
    terminationProtection: true,
    ports: [port],
    domains: [],
  };
  return judgeAlone(
    rules,
    subject,
    "cube",
    (rule) => rule.match?.names === undefined && rule.match?.groups === undefined,
    (f) => PORT_CHECKS.has(f.check),
  );
}

function judgeAlone(
  rules: readonly SourcedRule[],
  subject: CubeSubject,
  address: string,
  applies: (rule: PolicyRule) => boolean,
  keep: (f: Finding) => boolean,
): PolicyViolation[] {
  const found: PolicyViolation[] = [];
  for (const { rule, source } of rules) {
    const check = cubeCheck(rule);
    if (check === undefined || !applies(rule)) continue;
    const findings: Finding[] = [];
    check(subject, address, findings);
    for (const finding of findings.filter(keep)) found.push(violation(rule, source, finding, subject.name || undefined));
  }
  return found;
}
