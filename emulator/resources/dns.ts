/** The emulated DNS zone, the records a domain needs, and their live-check states. */
import type { DnsRecord, DnsRecordState, DnsRecordStatus } from "../../schema/api.js";
import type { DnsEntry, DnsType, DomainRecord, StateData } from "../core/state.js";
import { acmeTarget } from "./views.js";

export const ROUTING_TARGET = "dns.krova.cloud";

/** Case-insensitive, trailing dot ignored. */
export function normalizeName(value: string): string {
  return value.trim().toLowerCase().replace(/\.$/, "");
}

export function publishDns(data: StateData, record: DnsEntry): void {
  removeDns(data, record);
  data.dns.records.push({ type: record.type, host: normalizeName(record.host), value: record.value });
}

export function removeDns(data: StateData, record: { type: DnsType; host: string }): void {
  const host = normalizeName(record.host);
  data.dns.records = data.dns.records.filter((r) => !(r.type === record.type && r.host === host));
}

export function setDnsUnavailable(data: StateData, host: string, unavailable: boolean): void {
  const name = normalizeName(host);
  const others = data.dns.unavailable.filter((h) => h !== name);
  data.dns.unavailable = unavailable ? [...others, name] : others;
}

/** A record a domain needs; its id is its purpose. */
function needed(
  purpose: string,
  type: DnsType,
  host: string,
  value: string,
  note: string,
  proxy: { mustBeGrey?: true; proxyOk?: true } = {},
): DnsRecord {
  return { id: purpose, purpose, type, host, value, note, mustBeGrey: proxy.mustBeGrey ?? false, proxyOk: proxy.proxyOk ?? false };
}

const GREY_NOTE = "Must be DNS-only: a proxied record answers with the proxy's addresses and the certificate authority finds nothing.";

/** The records a domain needs: one routing CNAME, or three for a wildcard. */
export function requiredRecords(domain: DomainRecord): DnsRecord[] {
  const routing = needed("routing", "CNAME", domain.domain, ROUTING_TARGET, "May be proxied by your DNS provider.", { proxyOk: true });
  if (!domain.isWildcard) return [routing];
  const apex = domain.domain.slice(2);
  return [
    needed(
      "ownership",
      "TXT",
      `_krova-verify.${apex}`,
      `krova-verify=${domain.token}`,
      "Proves you own the domain. TXT records are never proxied.",
    ),
    routing,
    needed("certificate", "CNAME", `_acme-challenge.${apex}`, acmeTarget(domain), GREY_NOTE, { mustBeGrey: true }),
  ];
}

export function checkRecord(data: StateData, record: DnsRecord): DnsRecordStatus {
  const host = normalizeName(record.host);
  if (data.dns.unavailable.includes(host)) {
    return {
      ...record,
      state: "unknown",
      detail: `Could not look up ${record.host} right now; this says nothing about your DNS.`,
      observed: null,
    };
  }
  const atHost = data.dns.records.filter((r) => r.host === host);
  const sameType = atHost.filter((r) => r.type === record.type);
  const observed = (sameType.length > 0 ? sameType : atHost).map((r) => (r.type === record.type ? r.value : `${r.type} ${r.value}`));
  const found = sameType.some((r) => normalizeName(r.value) === normalizeName(record.value));
  const state: DnsRecordState = found ? "found" : atHost.length === 0 ? "missing" : "mismatch";
  return { ...record, state, detail: detailOf(state, record), observed };
}

function detailOf(state: DnsRecordState, record: DnsRecord): string {
  if (state === "found") return `${record.type} ${record.host} → ${record.value} is published.`;
  if (state === "missing") return `No ${record.type} record at ${record.host} yet; add it with the value ${record.value}.`;
  return `${record.host} points somewhere else; change it to ${record.type} ${record.value}.`;
}
