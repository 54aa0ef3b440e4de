/**
 * A quicker way through the response check for the answers a plan reads by the thousand: the
 * pages of the cube list, and each cube's domains and TCP mappings (zod costs ~4× their
 * JSON.parse). For an answer whose every field is plainly valid, this builds exactly what the
 * zod schema gives (the same keys in the schema's order, unknown keys left out); for anything
 * else it answers undefined and zod reads the answer, so zod's verdict and message stand wherever
 * anything is unusual (a nested object such as a CORS config always goes to zod). The schemas
 * stay the one source of truth: test/client/fast-check.test.ts compares the two on valid and
 * broken answers.
 *
 * An object (or array) that has exactly the schema's keys, each value already what zod would
 * give, is answered as it is, not copied: zod's output with the keys in the answer's order
 * instead of the schema's. Ten thousand cubes of a list are then not made twice (nor collected
 * twice: the copies were most of what a --target plan's page reads left to the collector).
 */
import { CUBE_STATES, OriginScheme, ProxyProtocol, SecurityHeadersMode, WILDCARD_CERT_STATES } from "../schema/common.js";
import type { Cube, Domain, Pagination, TcpMapping } from "../schema/api.js";

type Json = Record<string, unknown>;
/** A field's check: its value as zod gives it, or NO. */
type Check = (value: unknown) => unknown;
/** [key, check, optional]: in the schema's order. */
type Fields = readonly (readonly [string, Check, boolean])[];

const NO = Symbol("no");

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const string: Check = (v) => (typeof v === "string" ? v : NO);
const boolean: Check = (v) => (typeof v === "boolean" ? v : NO);
/** zod's number is finite; its int is left to zod beyond the safe integers. */
const number: Check = (v) => (typeof v === "number" && Number.isFinite(v) ? v : NO);
const int: Check = (v) => (Number.isSafeInteger(v) ? v : NO);
const oneOf = (values: readonly string[]): Check => {
  const set: ReadonlySet<unknown> = new Set(values);
  return (v) => (set.has(v) ? v : NO);
};
const nullable = (check: Check): Check => (v) => (v === null ? null : check(v));
/** Only null goes the quick way (an object value is left to zod). */
const onlyNull: Check = (v) => (v === null ? null : NO);
const arrayOf = (check: Check): Check => (v) => {
  if (!Array.isArray(v)) return NO;
  let out: unknown[] | undefined;
  for (let i = 0; i < v.length; i++) {
    const item: unknown = v[i];
    const checked = check(item);
    if (checked === NO) return NO;
    if (checked !== item) out ??= v.slice(0, i);
    out?.push(checked);
  }
  return out ?? v;
};
const object = (fields: Fields): Check => (v) => objectOf(v, fields);

function objectOf(value: unknown, fields: Fields): Json | typeof NO {
  if (!isRecord(value)) return NO;
  let present = 0;
  let unchanged = true;
  // Indexed, not for…of with destructuring: this runs for every field of every cube, mostly
  // before V8 optimizes it, where array iterators cost half again as much.
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    const key = field[0];
    if (!Object.hasOwn(value, key)) {
      if (field[2]) continue;
      return NO;
    }
    const check = field[1];
    present++;
    const given = value[key];
    const checked = check(given);
    if (checked === NO) return NO;
    if (checked !== given) unchanged = false;
  }
  return unchanged && keyCount(value) === present ? value : copyOf(value, fields);
}

/**
 * The value's enumerable keys, its own (a JSON answer's keys, an own "__proto__" included) and
 * any it inherits: only a value with exactly the schema's own keys and no others counts as
 * many as objectOf found present (an inherited one, were a library to add one, costs a copy).
 */
function keyCount(value: Json): number {
  let count = 0;
  for (const _ in value) count++;
  return count;
}

/** zod's output for a value objectOf has checked: the schema's keys, in its order. */
function copyOf(value: Json, fields: Fields): Json {
  const out: Json = {};
  for (const [key, check] of fields) if (Object.hasOwn(value, key)) out[key] = check(value[key]);
  return out;
}

const CUBE: Fields = [
  ["id", string, false],
  ["name", string, false],
  ["state", oneOf(CUBE_STATES), false],
  ["publicIpv4", nullable(string), false],
  ["image", string, false],
  ["sshUser", string, false],
  ["resources", object([["vcpu", int, false], ["ramGb", number, false], ["diskGb", int, false]]), false],
  ["terminationProtection", boolean, false],
  ["terminationProtectionChangedAt", nullable(string), false],
  ["terminationProtectionChangedBy", nullable(string), false],
  ["costPerHour", number, true],
  ["serverDomain", nullable(string), true],
  ["region", string, true],
  ["createdAt", string, true],
  ["updatedAt", string, true],
];

const TCP_MAPPING: Fields = [
  ["id", string, false],
  ["cubeId", string, false],
  ["cubePort", int, false],
  ["hostPort", int, false],
  ["host", nullable(string), false],
  ["label", nullable(string), false],
  ["status", string, false],
  ["isSsh", boolean, false],
  ["udpEnabled", boolean, false],
  ["whitelistedIps", arrayOf(object([["id", string, false], ["cidr", string, false]])), false],
  ["createdAt", string, true],
  ["updatedAt", string, true],
];

const DOMAIN: Fields = [
  ["id", string, false],
  ["cubeId", string, false],
  ["domain", string, false],
  ["port", nullable(int), false],
  ["status", string, false],
  ["ingressStatus", nullable(string), true],
  ["securityHeadersMode", oneOf(SecurityHeadersMode.options), true],
  ["responseHeaderTimeoutSecs", int, true],
  ["responseHeaderOverrides", onlyNull, true],
  ["requestHeaderOverrides", onlyNull, true],
  ["maxRequestBodyMb", nullable(int), true],
  ["responseCompression", boolean, true],
  ["ipAllowList", nullable(arrayOf(string)), true],
  ["ipDenyList", nullable(arrayOf(string)), true],
  ["basicAuthUser", nullable(string), true],
  ["basicAuthEnabled", boolean, true],
  ["corsConfig", onlyNull, true],
  ["originScheme", oneOf(OriginScheme.options), true],
  ["proxyProtocol", nullable(oneOf(ProxyProtocol.options)), true],
  ["isWildcard", boolean, false],
  ["wildcardCertState", nullable(oneOf(WILDCARD_CERT_STATES)), true],
  ["acmeDelegationTarget", nullable(string), true],
  ["createdAt", string, true],
  ["updatedAt", string, true],
];

const PAGINATION: Fields = [
  ["page", int, false],
  ["limit", int, false],
  ["total", int, false],
  ["totalPages", int, false],
];

/**
 * A list answer in the reference's envelope (`{<key>: […], pagination?}`) as listEnveloped's
 * first branch gives it, or undefined (a bare array, or anything unusual, is zod's).
 */
function listOf<T>(key: string, fields: Fields): (body: unknown) => { items: T[]; pagination: Pagination | undefined } | undefined {
  const item = object(fields);
  return (body) => {
    if (!isRecord(body) || !Array.isArray(body[key])) return undefined;
    let pagination: Pagination | undefined;
    if (Object.hasOwn(body, "pagination")) {
      const checked = objectOf(body.pagination, PAGINATION);
      if (checked === NO) return undefined;
      pagination = checked as Pagination;
    }
    const items = arrayOf(item)(body[key]);
    return items === NO ? undefined : { items: items as T[], pagination };
  };
}

export const cubePageOf = listOf<Cube>("cubes", CUBE);
export const tcpMappingsOf = listOf<TcpMapping>("tcpMappings", TCP_MAPPING);
export const domainsOf = listOf<Domain>("domains", DOMAIN);
