/** How `cubeform dns` (and the demo) print a cube's DNS records: a table, JSON or zone-file lines. Pure. */
import { isIP } from "node:net";
import type { DnsRecordStatus } from "../../schema/api.js";
import type { DNS_FORMATS } from "../arguments/options.js";
import { escapeText as t, zoneName, zoneString } from "./escape.js";
import { proxyAdvice as advice } from "../report/reach.js";
import { table } from "./table.js";
import type { CubeDns } from "../report/dns-reads.js";

export type DnsFormat = (typeof DNS_FORMATS)[number];

export const isComplete = (report: CubeDns): boolean => report.domains.every((d) => d.complete);

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
    const status =
      domain.error !== undefined
        ? `could not be checked: ${domain.error}`
        : domain.complete
          ? "complete"
          : `${found} of ${domain.records.length} records found`;
    lines.push(t(`${report.cube.name}  ${domain.hostname}  (${status})`));
    const rows = table(
      ["TYPE", "HOST", "VALUE", "STATE", "PROXY"],
      domain.records.map((r) => [r.type, r.host, r.value, stateText(r), proxyAdvice(r)]),
    );
    lines.push(
      ...rows
        .trimEnd()
        .split("\n")
        .map((row) => `  ${row}`),
      "",
    );
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
