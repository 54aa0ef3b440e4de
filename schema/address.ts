/**
 * IPv4 and IPv6 addresses and CIDR blocks, as the allow/deny lists of ports and domains take
 * them. The regex in api.ts only gives editors a pattern; this is the real check (octets up
 * to 255, prefix lengths up to 32 or 128, IPv6 by Node's own parser).
 */
import { isIPv4, isIPv6 } from "node:net";

const PREFIX = /^(?:0|[1-9]\d{0,2})$/;

/** Why `text` is not an address or CIDR, or undefined when it is one. */
export function addressProblem(text: string): string | undefined {
  const slash = text.indexOf("/");
  const address = slash < 0 ? text : text.slice(0, slash);
  const prefix = slash < 0 ? undefined : text.slice(slash + 1);
  const family = isIPv4(address) ? 4 : isIPv6(address) && !address.includes("%") ? 6 : undefined;
  if (family === undefined) {
    const looksV4 = /^[\d.]+$/.test(address);
    const hint = looksV4 ? "an IPv4 address is four numbers from 0 to 255, like 203.0.113.7" : "write an IPv4 or IPv6 address, optionally with a prefix: 203.0.113.0/24, 2001:db8::/32";
    return `"${text}" is not an IP address or CIDR (${hint})`;
  }
  if (prefix === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  if (!PREFIX.test(prefix) || Number(prefix) > max) return `"${text}": an IPv${family} prefix length is a whole number from 0 to ${max}`;
  return undefined;
}

export function isAddressOrCidr(text: string): boolean {
  return addressProblem(text) === undefined;
}
