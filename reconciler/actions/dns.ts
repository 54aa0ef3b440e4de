/**
 * `cubeform dns CUBE [DOMAIN]`: the DNS records a cube's domains need, their live state and proxy advice; --wait until all are found.
 * `missing` (not published yet) and `unknown` (could not check) are states to show, never errors.
 */
import type { CubeApi, Domain } from "../../client/api.js";
import type { Cube, DnsRecordStatus } from "../../schema/api.js";
import type { RateLimit } from "../session/connect.js";
import { DNS_FORMATS } from "../arguments/options.js";
import { DEFAULT_DNS_PACE, readPaced, readRecordView, type DnsReadPace } from "../report/dns-reads.js";
import { CliError } from "../errors.js";
import { isIP } from "node:net";
import { writeLine, type CliIo } from "../io.js";
import { formatDuration, sleep } from "../../system/time.js";
import { escapeText as t, zoneName, zoneString } from "../render/escape.js";
import { proxyAdvice as advice } from "../report/reach.js";
import { withConnection } from "../session/session.js";
import { findCube, table, type WaitFlags } from "../session/day2.js";

export type DnsFormat = (typeof DNS_FORMATS)[number];

export interface DnsContext extends WaitFlags {
  cube: string;
  domain?: string;
  format: DnsFormat;
  emulator: boolean;
  rateLimit: RateLimit;
  /** How the record views are read (default DEFAULT_DNS_PACE). */
  dnsPace?: DnsReadPace;
  cwd: string;
}

export interface DomainDns {
  hostname: string;
  domainId: string;
  records: DnsRecordStatus[];
  complete: boolean;
  /** Set when the records view could not be read at all. */
  error?: string;
}

export type CubeDns = { cube: { id: string; name: string }; domains: DomainDns[] };

export async function runDns(ctx: DnsContext, io: CliIo): Promise<number> {
  return withConnection({ ...ctx, files: [], format: "text" }, io, async (conn) => {
    const cube = await findCube(conn.client, ctx.cube);
    const domains = await domainsOf(conn.client, cube, ctx.domain);
    let report = await readCubeDns(conn.client, cube, domains, ctx.dnsPace);
    if (ctx.wait) report = await waitUntilComplete(conn.client, cube, domains, report, ctx, io);
    io.stdout.write(renderDns(report, ctx.format));
    if (ctx.wait && !isComplete(report)) throw new CliError("dns_incomplete", incompleteMessage(report, ctx));
    return 0;
  });
}

async function domainsOf(client: CubeApi, cube: Cube, hostname: string | undefined): Promise<Domain[]> {
  const domains = await client.listDomains(cube.id);
  if (hostname === undefined) return domains;
  const domain = domains.find((d) => d.hostname === hostname.toLowerCase());
  if (domain === undefined) {
    const attached = domains.map((d) => d.hostname).join(", ") || "none";
    throw new CliError("domain_not_found", `cube "${cube.name}" has no domain ${hostname} (attached: ${attached})`);
  }
  return [domain];
}

export async function readCubeDns(client: CubeApi, cube: Cube, domains: Domain[], pace: DnsReadPace = DEFAULT_DNS_PACE): Promise<CubeDns> {
  const results = await readPaced(domains, pace, (domain) => readDomainDns(client, cube.id, domain));
  return { cube: { id: cube.id, name: cube.name }, domains: results };
}

async function readDomainDns(client: CubeApi, cubeId: string, domain: Domain): Promise<DomainDns> {
  return { hostname: domain.hostname, domainId: domain.id, ...(await readRecordView(client, cubeId, domain.id)) };
}

export const isComplete = (report: CubeDns): boolean => report.domains.every((d) => d.complete);

async function waitUntilComplete(client: CubeApi, cube: Cube, domains: Domain[], first: CubeDns, ctx: DnsContext, io: CliIo): Promise<CubeDns> {
  const deadline = Date.now() + ctx.timeoutMs;
  let report = first;
  let lastProgress = "";
  while (!isComplete(report) && Date.now() < deadline && !io.signal?.aborted) {
    const progress = progressLine(report);
    if (progress !== lastProgress) writeLine(io.stderr, t(`waiting for DNS: ${progress}`));
    lastProgress = progress;
    await sleep(Math.min(ctx.intervalMs, Math.max(0, deadline - Date.now())), io.signal);
    report = await readCubeDns(client, cube, domains, ctx.dnsPace);
  }
  return report;
}

function progressLine(report: CubeDns): string {
  const records = report.domains.flatMap((d) => d.records);
  const found = records.filter((r) => r.state === "found").length;
  return `${found} of ${records.length} records found`;
}

function incompleteMessage(report: CubeDns, ctx: DnsContext): string {
  const pending = report.domains
    .filter((d) => !d.complete)
    .flatMap((d) => (d.error !== undefined ? [`${d.hostname} (${d.error})`] : d.records.filter((r) => r.state !== "found").map((r) => `${r.type} ${r.host} → ${r.value} (${stateText(r)})`)));
  return `DNS of cube "${report.cube.name}" is not complete after ${formatDuration(ctx.timeoutMs)}; still needed: ${pending.join("; ")}`;
}

// ---------------------------------------------------------------- rendering (pure)

export function renderDns(report: CubeDns, format: DnsFormat): string {
  if (format === "json") return `${JSON.stringify({ formatVersion: 1, ...report, complete: isComplete(report) }, null, 2)}\n`;
  if (format === "zone") return renderZone(report);
  return renderTable(report);
}

export function proxyAdvice(record: Pick<DnsRecordStatus, "mustBeGrey" | "proxyOk">): string {
  return advice(record) || "-";
}

const STATE_TEXT = { found: "found", missing: "not published yet", unknown: "could not check" } as const;

export function stateText(record: Pick<DnsRecordStatus, "state" | "observed">): string {
  if (record.state !== "mismatch") return STATE_TEXT[record.state];
  return `wrong value${record.observed && record.observed.length > 0 ? ` (found ${record.observed.join(", ")})` : ""}`;
}

function renderTable(report: CubeDns): string {
  if (report.domains.length === 0) return `Cube "${t(report.cube.name)}" has no domains.\n`;
  const lines: string[] = [];
  for (const domain of report.domains) {
    const found = domain.records.filter((r) => r.state === "found").length;
    const status = domain.error !== undefined ? `could not be checked: ${domain.error}` : domain.complete ? "complete" : `${found} of ${domain.records.length} records found`;
    lines.push(t(`${report.cube.name}  ${domain.hostname}  (${status})`));
    const rows = table(["TYPE", "HOST", "VALUE", "STATE", "PROXY"], domain.records.map((r) => [r.type, r.host, r.value, stateText(r), proxyAdvice(r)]));
    lines.push(...rows.trimEnd().split("\n").map((row) => `  ${row}`), "");
  }
  return lines.join("\n");
}

export const ZONE_TTL = 300;

function renderZone(report: CubeDns): string {
  const lines = [`; DNS records for the domains of cube ${t(report.cube.name)} (${t(report.cube.id)})`];
  for (const domain of report.domains) {
    lines.push(`; ${t(domain.hostname)}${domain.complete ? " (complete)" : ""}`);
    for (const r of domain.records) lines.push(`${zoneLine(r)}${r.mustBeGrey ? " ; DNS only (grey cloud)" : ""}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * `_acme-challenge.example.com. 300 IN CNAME tok.acme.krova.cloud.`; names and values from the
 * API are escaped for the zone file (a line break in one cannot start another record).
 */
export function zoneLine(record: Pick<DnsRecordStatus, "type" | "host" | "value">): string {
  return `${fqdn(zoneName(record.host))} ${ZONE_TTL} IN ${zoneName(record.type)} ${zoneValue(record)}`;
}

function zoneValue(record: Pick<DnsRecordStatus, "type" | "value">): string {
  if (record.type === "TXT") return zoneString(record.value);
  if (record.type === "A" && isIP(record.value) === 4) return record.value;
  return fqdn(zoneName(record.value));
}

const fqdn = (name: string): string => (name.endsWith(".") ? name : `${name}.`);
