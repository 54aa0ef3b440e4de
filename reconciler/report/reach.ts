/** How to reach the space's cubes, read live (ssh command, TCP host:port, DNS records and whether published): after apply and by `cubeform show`. */
import type { CubeApi, Domain, TcpMapping } from "../../client/api.js";
import type { Cube, CubeSshInfo, DnsRecord, DnsRecordState } from "../../schema/api.js";
import { mapBounded } from "../../system/concurrency.js";
import { readPaced, readRecordView, type DnsReadPace } from "./dns-reads.js";
import { escapeText as t } from "../render/escape.js";
import { sshAnswerProblem, sshCommandLine } from "../ssh.js";

export interface CubeReach {
  name: string;
  id: string;
  state: string;
  publicIpv4: string | null;
  /** null: the cube has no host yet (not running, or no server assigned), or the API's answer is not usable (sshProblem). */
  ssh: { command: string; host: string; port: number; user: string } | null;
  sshProblem?: string;
  tcp: TcpReach[];
  domains: DomainReach[];
}

export interface TcpReach {
  cubePort: number;
  label: string | null;
  udp: boolean;
  /** host:hostPort; null when the cube has no host yet. */
  address: string | null;
  host: string | null;
  hostPort: number;
  /** CIDRs allowed to connect; empty: open to the internet. */
  allow: string[];
}

export interface DomainRecord extends Pick<DnsRecord, "type" | "host" | "value" | "mustBeGrey" | "proxyOk"> {
  /** From the live check; absent when the records could not be checked. */
  state?: DnsRecordState;
}

export interface DomainReach {
  hostname: string;
  port: number | null;
  /** Every record found in live DNS; null when they could not be checked. */
  complete: boolean | null;
  records: DomainRecord[];
  /** Why the records could not be checked. */
  error?: string;
}

/** Reads how to reach each cube, `concurrency` cubes at once (each: ssh, TCP mappings, domains); the answers in the cubes' order. */
export async function readReach(
  client: CubeApi,
  cubes: readonly Cube[],
  options: { concurrency: number; dnsPace: DnsReadPace },
): Promise<CubeReach[]> {
  const base = await mapBounded(cubes, options.concurrency, (cube) => readCube(client, cube));
  const domains = base.flatMap((entry) => entry.domains.map((domain) => ({ cube: entry.cube, domain })));
  const records = await readPaced(domains, options.dnsPace, ({ cube, domain }) => readRecords(client, cube.id, domain));
  let next = 0;
  return base.map(({ cube, ssh, mappings, domains: own }) => ({
    name: cube.name,
    id: cube.id,
    state: cube.state,
    publicIpv4: cube.publicIpv4,
    ...sshReach(ssh),
    tcp: mappings
      .filter((m) => !m.isSsh)
      .sort((a, b) => a.cubePort - b.cubePort)
      .map(tcpReach),
    domains: own.map(() => records[next++] as DomainReach),
  }));
}

async function readCube(
  client: CubeApi,
  cube: Cube,
): Promise<{ cube: Cube; ssh: CubeSshInfo | null; mappings: TcpMapping[]; domains: Domain[] }> {
  const [ssh, mappings, domains] = await Promise.all([
    client.getSsh(cube.id).catch(() => null),
    client.listTcpMappings(cube.id),
    client.listDomains(cube.id),
  ]);
  return { cube, ssh, mappings, domains: [...domains].sort((a, b) => a.hostname.localeCompare(b.hostname)) };
}

async function readRecords(client: CubeApi, cubeId: string, domain: Domain): Promise<DomainReach> {
  const base = { hostname: domain.hostname, port: domain.port ?? null };
  const view = await readRecordView(client, cubeId, domain.id);
  if (view.error !== undefined) return { ...base, complete: null, records: [], error: view.error };
  return {
    ...base,
    complete: view.complete,
    records: view.records.map((r) => ({
      type: r.type,
      host: r.host,
      value: r.value,
      state: r.state,
      mustBeGrey: r.mustBeGrey,
      proxyOk: r.proxyOk,
    })),
  };
}

function tcpReach(m: TcpMapping): TcpReach {
  return {
    cubePort: m.cubePort,
    label: m.label,
    udp: m.udp,
    address: m.host ? `${m.host}:${m.hostPort}` : null,
    host: m.host,
    hostPort: m.hostPort,
    allow: m.allow,
  };
}

/** The ssh command of a cube whose answer passes the checks of ssh.ts; else why it is not shown. */
function sshReach(ssh: CubeSshInfo | null): Pick<CubeReach, "ssh" | "sshProblem"> {
  if (!ssh?.host) return { ssh: null };
  const problem = sshAnswerProblem(ssh);
  if (problem !== undefined) return { ssh: null, sshProblem: `the API's answer is not usable: ${problem}` };
  const target = { ...ssh, host: ssh.host };
  return { ssh: { command: sshCommandLine(target), host: ssh.host, port: ssh.port, user: ssh.user } };
}

/** The text form: one block per cube. */
export function renderReachText(reach: readonly CubeReach[]): string {
  const lines: string[] = [];
  for (const cube of reach) {
    lines.push(t(`${cube.name} (${cube.id}, ${cube.state}${cube.publicIpv4 ? `, ${cube.publicIpv4}` : ""})`));
    lines.push(
      `  ssh:     ${cube.ssh ? cube.ssh.command : cube.sshProblem ? `not shown: ${cube.sshProblem}` : "no host yet (the cube has no server assigned; try again once it runs)"}`,
    );
    for (const port of cube.tcp) lines.push(`  tcp:     ${t(tcpLine(port))}`);
    for (const domain of cube.domains) lines.push(...domainLines(domain));
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

function tcpLine(port: TcpReach): string {
  const what = [port.label, port.udp ? "tcp+udp" : "tcp", port.allow.length > 0 ? `from ${port.allow.join(", ")}` : "open to the internet"]
    .filter(Boolean)
    .join(", ");
  return `${port.cubePort} → ${port.address ?? "no host yet"}  (${what})`;
}

function domainLines(domain: DomainReach): string[] {
  const to = domain.port === null ? "" : ` → port ${domain.port}`;
  if (domain.complete === null)
    return [
      `  domain:  ${t(domain.hostname)}${to}; its DNS records could not be read: ${t(domain.error ?? "unknown error")} (see cubeform dns)`,
    ];
  const found = domain.records.filter((r) => r.state === "found").length;
  const status = domain.complete ? "DNS records published" : `publish these DNS records (${found} of ${domain.records.length} found)`;
  return [`  domain:  ${t(domain.hostname)}${to}; ${status}:`, ...domain.records.map((r) => `             ${recordLine(r)}`)];
}

/** "CNAME www.example.com → dns.krova.cloud  [may be proxied]  missing" */
export function recordLine(r: DomainRecord): string {
  const advice = proxyAdvice(r);
  return `${t(r.type).padEnd(5)} ${t(r.host)} → ${t(r.value)}${advice ? `  [${advice}]` : ""}${r.state && r.state !== "found" ? `  ${STATE_WORDS[r.state]}` : ""}`;
}

export const proxyAdvice = (r: Pick<DnsRecord, "mustBeGrey" | "proxyOk">): string =>
  r.mustBeGrey ? "DNS only (grey cloud)" : r.proxyOk ? "may be proxied" : "";

const STATE_WORDS: Record<DnsRecordState, string> = {
  found: "found",
  missing: "not published yet",
  mismatch: "wrong value published",
  unknown: "could not check",
};

export interface ReachJson {
  formatVersion: 1;
  spaceId: string;
  cubes: CubeReach[];
}
