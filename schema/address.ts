/**
 * IPv4 and IPv6 addresses and CIDR blocks, as the allow/deny lists take them: the real check (octets up to 255, prefixes up to
 * 32 or 128, IPv6 by Node's rule) behind the pattern common.ts gives editors.
 */

// node:net's isIPv4/isIPv6 (lib/internal/net.js), without loading node:net: ~1.5 ms of `cubeform validate` when its output goes
// to files. test/schema/address.test.ts compares them with node:net's.
const V4_SEG = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
const V4 = `(?:${V4_SEG}\\.){3}${V4_SEG}`;
const V6_SEG = "(?:[0-9a-fA-F]{1,4})";
const IPV4 = new RegExp(`^${V4}$`);
const IPV6 = new RegExp(
  "^(?:" +
    `(?:${V6_SEG}:){7}(?:${V6_SEG}|:)|` +
    `(?:${V6_SEG}:){6}(?:${V4}|:${V6_SEG}|:)|` +
    `(?:${V6_SEG}:){5}(?::${V4}|(?::${V6_SEG}){1,2}|:)|` +
    `(?:${V6_SEG}:){4}(?:(?::${V6_SEG}){0,1}:${V4}|(?::${V6_SEG}){1,3}|:)|` +
    `(?:${V6_SEG}:){3}(?:(?::${V6_SEG}){0,2}:${V4}|(?::${V6_SEG}){1,4}|:)|` +
    `(?:${V6_SEG}:){2}(?:(?::${V6_SEG}){0,3}:${V4}|(?::${V6_SEG}){1,5}|:)|` +
    `(?:${V6_SEG}:){1}(?:(?::${V6_SEG}){0,4}:${V4}|(?::${V6_SEG}){1,6}|:)|` +
    `(?::(?:(?::${V6_SEG}){0,5}:${V4}|(?::${V6_SEG}){1,7}|:))` +
    ")(?:%[0-9a-zA-Z-.:]{1,})?$",
);

/** As node:net's isIPv4. */
export function isIPv4(text: string): boolean {
  return IPV4.test(text);
}

/** As node:net's isIPv6 (a zone index such as %eth0 included). */
export function isIPv6(text: string): boolean {
  return IPV6.test(text);
}

const PREFIX = /^(?:0|[1-9]\d{0,2})$/;

/** Why `text` is not an address or CIDR, or undefined when it is one. */
export function addressProblem(text: string): string | undefined {
  const slash = text.indexOf("/");
  const address = slash < 0 ? text : text.slice(0, slash);
  const prefix = slash < 0 ? undefined : text.slice(slash + 1);
  const family = isIPv4(address) ? 4 : isIPv6(address) && !address.includes("%") ? 6 : undefined;
  if (family === undefined) {
    const looksV4 = /^[\d.]+$/.test(address);
    const hint = looksV4
      ? "an IPv4 address is four numbers from 0 to 255, like 203.0.113.7"
      : "write an IPv4 or IPv6 address, optionally with a prefix: 203.0.113.0/24, 2001:db8::/32";
    return `"${text}" is not an IP address or CIDR (${hint})`;
  }
  if (prefix === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  if (!PREFIX.test(prefix) || Number(prefix) > max) return `"${text}": an IPv${family} prefix length is a whole number from 0 to ${max}`;
  return undefined;
}
