/**
 * The API's names → the desired-state file's, translated here only: a domain's `domain` is `hostname`; a TCP mapping's
 * `udpEnabled` is `udp` and its `whitelistedIps` (`{id, cidr}`) are `allow` (the CIDRs). Engine, provider and CLI never see the API's.
 */
import type * as Api from "../schema/api.js";

export type Domain = Omit<Api.Domain, "domain"> & { hostname: string };
export type TcpMapping = Omit<Api.TcpMapping, "udpEnabled" | "whitelistedIps"> & { udp: boolean; allow: string[] };
export type AttachDomainRequest = Omit<Api.AttachDomainRequest, "domain"> & { hostname: string };
export type AttachDomainResponse = { domain: Domain; records: Api.DnsRecord[] };
/** `allow` (CIDRs, empty = open) is always sent, so the API's deprecated alias whitelistIps never is. */
export type CreateTcpMappingRequest = Omit<Api.CreateTcpMappingRequest, "udpEnabled" | "whitelistedIps" | "whitelistIps"> & {
  udp: boolean;
  allow: string[];
};

export function domainOf(domain: Api.Domain): Domain {
  const out = new Answer(domain, "domain") as unknown as Domain;
  out.hostname = domain.domain;
  return out;
}

export function tcpMappingOf(mapping: Api.TcpMapping): TcpMapping {
  const out = new Answer(mapping, "udpEnabled", "whitelistedIps") as unknown as TcpMapping;
  out.udp = mapping.udpEnabled;
  out.allow = mapping.whitelistedIps.map((entry) => entry.cidr);
  return out;
}

/**
 * A checked answer's keys but the named ones. Made by a constructor: V8 keeps a literal that gains over a dozen keys one by one
 * in dictionary mode (20,000 domains at 10,000 cubes: ~28 MB), and `{ domain, ...rest }` gave each copy a hidden class of its
 * own (~30 MB); a constructor's objects have room for their keys and share one.
 */
class Answer {
  constructor(value: object, ...left: string[]) {
    for (const key in value) if (!left.includes(key)) (this as Record<string, unknown>)[key] = (value as Record<string, unknown>)[key];
  }
}

export const attachDomainBody = ({ hostname, ...rest }: AttachDomainRequest): Api.AttachDomainRequest => ({ domain: hostname, ...rest });

export const createTcpMappingBody = ({ udp, allow, ...rest }: CreateTcpMappingRequest): Api.CreateTcpMappingRequest => ({
  ...rest,
  udpEnabled: udp,
  whitelistedIps: [...allow],
});
