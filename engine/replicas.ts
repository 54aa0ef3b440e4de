/**
 * Groups of replicas: an entry with `replicas: N` stands for members NAME-1 … NAME-N, each a cube of the entry's spec, with `{i}` and `{name}` in
 * its domains' hostnames and its ports' labels made the member's own. Pure: normalize.ts calls these and reports the issues they return.
 */
import { Hostname, CubeName } from "../schema/common.js";
import type { DesiredCubeInput, Rollout } from "../schema/desired.js";
import type { DesiredGroupSpec, HealthCheckSpec, RolloutSpec } from "./types.js";
import { durationMs } from "../system/time.js";

type Path = (string | number)[];
export interface GroupIssue {
  path: Path;
  message: string;
}

const PLACEHOLDER = /\{(?:i|name)\}/;

/** "web" and 3 → "web-3". */
export const memberName = (group: string, index: number): string => `${group}-${index}`;

/** The index of `name` as a member of `group` ("web-3" → 3), or undefined when it is not one (leading zeros never are). */
export function memberIndex(group: string, name: string): number | undefined {
  if (!name.startsWith(`${group}-`)) return undefined;
  const rest = name.slice(group.length + 1);
  return /^[1-9]\d*$/.test(rest) ? Number(rest) : undefined;
}

const expand = (text: string, name: string, index: number): string => text.replaceAll("{i}", String(index)).replaceAll("{name}", name);

/** A group's hostname as member `index` has it ("web-{i}.example.com", "web", 2 → "web-2.example.com"). */
export const memberHostname = (hostname: string, group: string, index: number): string => expand(hostname, memberName(group, index), index);

/** Member `index` of a replicated entry: its own name, hostnames and port labels, without `replicas`. */
export function memberInput(input: DesiredCubeInput, index: number): DesiredCubeInput {
  const name = memberName(input.name, index);
  const { replicas: _replicas, ...rest } = input;
  return {
    ...rest,
    name,
    domains: (input.domains ?? []).map((domain) => ({ ...domain, hostname: expand(domain.hostname, name, index) })),
    ports: (input.ports ?? []).map((port) => (port.label === undefined ? port : { ...port, label: expand(port.label, name, index) })),
  };
}

/** What is wrong with an entry's replicas that the schema cannot see: names too long, hostnames all members would share or that expand badly. */
export function groupIssues(input: DesiredCubeInput, path: Path): GroupIssue[] {
  const issues: GroupIssue[] = [];
  const domains = input.domains ?? [];
  if (input.replicas === undefined) {
    domains.forEach((domain, d) => {
      if (PLACEHOLDER.test(domain.hostname))
        issues.push({
          path: [...path, "domains", d, "hostname"],
          message: "{i} and {name} stand for a replica's index and name: they need replicas: on the entry",
        });
    });
    return issues;
  }
  const last = memberName(input.name, input.replicas);
  if (!CubeName.safeParse(last).success)
    issues.push({
      path: [...path, "replicas"],
      message: `member name "${last}" is not a valid cube name (at most 64 characters): shorten the entry's name`,
    });
  domains.forEach((domain, d) => {
    const at = [...path, "domains", d, "hostname"];
    if (input.replicas !== 1 && !PLACEHOLDER.test(domain.hostname)) {
      issues.push({
        path: at,
        message: `every one of the ${input.replicas} replicas would claim ${domain.hostname}; a hostname is attached to one cube only: put {i} or {name} in it (web-{i}.example.com)`,
      });
      return;
    }
    const expanded = expand(domain.hostname, last, input.replicas as number);
    if (!Hostname.safeParse(expanded).success)
      issues.push({ path: at, message: `for member ${last} this is ${expanded}, not a lowercase hostname` });
  });
  return issues;
}

/** Names the members of the groups take that another entry declares too. */
export function memberNameIssues(inputs: readonly DesiredCubeInput[]): GroupIssue[] {
  const declared = new Map<string, number>();
  inputs.forEach((input, index) => {
    if (input.replicas === undefined && !declared.has(input.name)) declared.set(input.name, index);
  });
  const issues: GroupIssue[] = [];
  inputs.forEach((input, index) => {
    if (input.replicas === undefined) return;
    for (let i = 1; i <= input.replicas; i++) {
      const other = declared.get(memberName(input.name, i));
      if (other !== undefined)
        issues.push({
          path: ["cubes", other, "name"],
          message: `"${memberName(input.name, i)}" is a member of the group cubes[${index}] (${input.name}, replicas: ${input.replicas}); rename one of them`,
        });
    }
  });
  return issues;
}

export function rolloutSpec(rollout: Rollout, replicas: number): RolloutSpec {
  const check = rollout.healthCheck;
  let healthCheck: HealthCheckSpec = { kind: "running" };
  if (check?.http) healthCheck = { kind: "http", url: check.http.url, expectStatus: check.http.expectStatus ?? 200 };
  else if (check?.tcp) healthCheck = { kind: "tcp", port: check.tcp.port };
  return {
    maxUnavailable: Math.min(rollout.maxUnavailable ?? 1, replicas),
    canary: Math.min(rollout.canary ?? 0, replicas),
    healthCheck,
    // The schema checked the form.
    healthyForMs: durationMs(check?.healthyFor ?? "10s") ?? 0,
    deadlineMs: durationMs(check?.deadline ?? "10m") ?? 0,
    autoRevert: rollout.autoRevert ?? false,
  };
}

export function groupSpec(input: DesiredCubeInput & { replicas: number }, rollout: Rollout | undefined): DesiredGroupSpec {
  return { name: input.name, replicas: input.replicas, ...(rollout ? { rollout: rolloutSpec(rollout, input.replicas) } : {}) };
}
