/**
 * A quicker check for the answers every plan reads: cube pages, domains and TCP mappings by the thousand (zod costs ~4× their
 * JSON.parse), and prices, regions and images (so a plan builds none of the other API schemas). An answer whose every field is plainly
 * valid gets exactly zod's output; anything else gets undefined and zod's verdict. The checks are read from the zod/mini
 * schemas of schema/listed.ts; test/client/fast-check.test.ts compares the two. An object that already has exactly the
 * schema's keys and values is answered as it is, not copied: ten thousand cubes are not made, nor collected, twice.
 */
import type * as z from "zod/mini";
import { Cube, Domain, Image, Pagination, Pricing, Region, TcpMapping } from "../schema/listed.js";

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
const never: Check = () => NO;
const oneOf = (values: readonly unknown[]): Check => {
  const set: ReadonlySet<unknown> = new Set(values);
  return (v) => (set.has(v) ? v : NO);
};
const nullable =
  (check: Check): Check =>
  (v) =>
    v === null ? null : check(v);
const arrayOf =
  (check: Check): Check =>
  (v) => {
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
const object =
  (fields: Fields): Check =>
  (v) =>
    objectOf(v, fields);

function objectOf(value: unknown, fields: Fields): Json | typeof NO {
  if (!isRecord(value)) return NO;
  let present = 0;
  let unchanged = true;
  // Indexed, not for…of: this runs for every field of every cube, mostly before V8 optimizes it, where iterators cost half again.
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
 * The value's enumerable keys, own (an own "__proto__" included) and inherited: only a value with exactly the schema's own
 * keys counts as many as objectOf found present (an inherited one, were a library to add one, costs a copy).
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

/**
 * A zod schema's check, read from its definition: strings, finite numbers, safe integers, booleans, enums, nullables, arrays
 * and (stripping) objects of these. Anything else (a length limit, a record, a default, a strict object) is left to zod.
 */
function checkOf(schema: z.core.$ZodType): Check {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const checks = (def.checks ?? []) as z.core.$ZodCheck[];
  switch (def.type) {
    case "string":
      return checks.length === 0 ? string : never;
    case "boolean":
      return checks.length === 0 ? boolean : never;
    case "number":
      return numberCheck(def.format, checks);
    case "enum":
      return checks.length === 0 ? oneOf(Object.values(def.entries as Record<string, unknown>)) : never;
    case "nullable":
      return nullable(checkOf(def.innerType as z.core.$ZodType));
    case "array":
      return checks.length === 0 ? arrayOf(checkOf(def.element as z.core.$ZodType)) : never;
    case "object":
      return checks.length === 0 && def.catchall === undefined ? object(fieldsOf(def.shape as Record<string, z.core.$ZodType>)) : never;
    default:
      return never;
  }
}

/** z.number() (finite), z.int() or z.number().int() (safe integers); any other check is zod's. */
function numberCheck(format: unknown, checks: readonly z.core.$ZodCheck[]): Check {
  if (format === "safeint") return checks.length === 0 ? int : never;
  if (format !== undefined) return never;
  if (checks.length === 0) return number;
  return checks.every(isSafeIntegerCheck) ? int : never;
}

function isSafeIntegerCheck(check: z.core.$ZodCheck): boolean {
  const def = check._zod.def as { check: string; format?: string };
  return def.check === "number_format" && def.format === "safeint";
}

function fieldsOf(shape: Record<string, z.core.$ZodType>): Fields {
  return Object.entries(shape).map(([key, schema]) => {
    const def = schema._zod.def as z.core.$ZodTypeDef & { innerType?: z.core.$ZodType };
    return def.type === "optional" ? [key, checkOf(def.innerType!), true] : [key, checkOf(schema), false];
  });
}

/** A list in the reference's envelope (`{<key>: […], pagination?}`) as listEnveloped gives it, or undefined (a bare array, or anything unusual, is zod's). */
export function listOf<T>(
  key: string,
  schema: z.core.$ZodType,
): (body: unknown) => { items: T[]; pagination: Pagination | undefined } | undefined {
  let item: Check | undefined;
  let pagination: Fields | undefined;
  return (body) => {
    if (!isRecord(body) || !Array.isArray(body[key])) return undefined;
    item ??= checkOf(schema);
    pagination ??= fieldsOf(Pagination.shape);
    let page: Pagination | undefined;
    if (Object.hasOwn(body, "pagination")) {
      const checked = objectOf(body.pagination, pagination);
      if (checked === NO) return undefined;
      page = checked as Pagination;
    }
    const items = arrayOf(item)(body[key]);
    return items === NO ? undefined : { items: items as T[], pagination: page };
  };
}

/** One object, in the reference's envelope (`{<key>: {…}}`) or bare, as enveloped() gives it, or undefined (anything unusual is zod's). */
export function envelopedOf<T>(key: string, schema: z.core.$ZodType): (body: unknown) => T | undefined {
  let check: Check | undefined;
  return (body) => {
    if (!isRecord(body)) return undefined;
    check ??= checkOf(schema);
    const checked = Object.hasOwn(body, key) ? check(body[key]) : check(body);
    return checked === NO ? undefined : (checked as T);
  };
}

export const pricingOf = envelopedOf<Pricing>("pricing", Pricing);
export const cubePageOf = listOf<Cube>("cubes", Cube);
export const tcpMappingsOf = listOf<TcpMapping>("tcpMappings", TcpMapping);
export const domainsOf = listOf<Domain>("domains", Domain);
export const regionsOf = listOf<Region>("regions", Region);
export const imagesOf = listOf<Image>("images", Image);
