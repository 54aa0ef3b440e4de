/**
 * "Loopback" for webhook deliveries (unless --deliver-anywhere) and the admin surface's Host headers (DNS
 * rebinding): an IP in 127.0.0.0/8 or ::1 (IPv4-mapped forms included), or `localhost`/`*.localhost` (RFC 6761)
 * resolving to loopback addresses alone. No other name is looked up: a public name is refused as it is.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { tryOr } from "../../system/files.js";

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** An IP address (no brackets) in a loopback network; a name or anything else is false. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** localhost and *.localhost: names that mean this machine by definition. */
export function isLocalhostName(name: string): boolean {
  const host = name.toLowerCase().replace(/\.$/, "");
  return host === "localhost" || host.endsWith(".localhost");
}

/** The host a URL names, an IPv6 address without its brackets; undefined when it is not a URL. */
function hostOf(url: string): string | undefined {
  return tryOr(() => new URL(url).hostname.replace(/^\[(.*)\]$/, "$1"), undefined);
}

/** A Host header (host[:port]) that names this machine without asking DNS; an absent one is an in-process request. */
export function isLoopbackHostHeader(value: string | undefined): boolean {
  if (value === undefined) return true;
  const host = hostOf(`http://${value}/`);
  return host !== undefined && (isLoopbackAddress(host) || isLocalhostName(host));
}

export const NOT_LOOPBACK = "not delivered: the emulator delivers only to loopback addresses (start it with --deliver-anywhere)";

/** Why a webhook delivery to `url` is not made, or undefined when it may be made. */
export async function deliveryRefusal(url: string, options: { deliverAnywhere: boolean }): Promise<string | undefined> {
  if (options.deliverAnywhere) return undefined;
  const hostname = hostOf(url);
  if (hostname === undefined) return `not delivered: ${JSON.stringify(url)} is not a URL`;
  if (isLoopbackAddress(hostname)) return undefined;
  if (!isLocalhostName(hostname)) return `${NOT_LOOPBACK}: ${hostname} is not a loopback address`;
  const addresses = await lookup(hostname, { all: true }).catch(() => []);
  if (addresses.length === 0) return `not delivered: ${hostname} did not resolve`;
  const elsewhere = addresses.find((a) => !isLoopbackAddress(a.address));
  return elsewhere === undefined ? undefined : `${NOT_LOOPBACK}: ${hostname} resolves to ${elsewhere.address}`;
}
