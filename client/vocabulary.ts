/**
 * The API's names → cubeform's (the desired-state file's), translated here once: a domain's
 * `domain` is its `hostname`; a TCP mapping's `udpEnabled` is `udp` and its `whitelistedIps`
 * (`{id, cidr}`) are `allow` (the CIDRs). The client hands out answers and takes request bodies
 * in the file's names; engine, provider and CLI never see the API's.
 */
import type * as Api from "../schema/api.js";

export type Domain = Omit<Api.Domain, "domain"> & { hostname: string };
export type TcpMapping = Omit<Api.TcpMapping, "udpEnabled" | "whitelistedIps"> & { udp: boolean; allow: string[] };
export type AttachDomainRequest = Omit<Api.AttachDomainRequest, "domain"> & { hostname: string };
export type AttachDomainResponse = { domain: Domain; records: Api.DnsRecord[] };
/** `allow` (CIDRs, empty = open) is always sent, so the API's deprecated alias whitelistIps never is. */
export type CreateTcpMappingRequest = Omit<Api.CreateTcpMappingRequest, "udpEnabled" | "whitelistedIps" | "whitelistIps"> & { udp: boolean; allow: string[] };

export const domainOf = ({ domain, ...rest }: Api.Domain): Domain => ({ ...rest, hostname: domain });

export const tcpMappingOf = ({ udpEnabled, whitelistedIps, ...rest }: Api.TcpMapping): TcpMapping => ({ ...rest, udp: udpEnabled, allow: whitelistedIps.map((entry) => entry.cidr) });

export const attachDomainBody = ({ hostname, ...rest }: AttachDomainRequest): Api.AttachDomainRequest => ({ domain: hostname, ...rest });

export const createTcpMappingBody = ({ udp, allow, ...rest }: CreateTcpMappingRequest): Api.CreateTcpMappingRequest => ({ ...rest, udpEnabled: udp, whitelistedIps: [...allow] });
