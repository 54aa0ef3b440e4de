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
/**
 * A field's check: its value as zod gives it, or NO. `test`, where the value passes unchanged or not at all: the same check
 * as a condition on `x`, written into the generated object checks (`ref` names a value the condition uses).
 */
type Check = ((value: unknown) => unknown) & { test?: (ref: (value: unknown) => string) => string };
/** [key, check, optional]: in the schema's order. */
type Fields = readonly (readonly [string, Check, boolean])[];

const NO = Symbol("no");

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A check that passes its value unchanged or not at all, made from its condition on `x`. */
function tested(test: NonNullable<Check["test"]>): Check {
  return Object.assign(
    compiled((ref) => `return (x) => (${test(ref)} ? x : NO);`),
    { test },
  );
}
const string = tested(() => `typeof x === "string"`);
const boolean = tested(() => `typeof x === "boolean"`);
/** zod's number is finite; its int is left to zod beyond the safe integers. */
const number = tested(() => `typeof x === "number" && Number.isFinite(x)`);
const int = tested(() => "Number.isSafeInteger(x)");
const never = tested(() => "false");
const oneOf = (values: readonly unknown[]): Check => {
  const set: ReadonlySet<unknown> = new Set(values);
  return tested((ref) => `${ref(set)}.has(x)`);
};
const nullable = (check: Check): Check => {
  const inner = check.test;
  return inner ? tested((ref) => `x === null || (${inner(ref)})`) : (v) => (v === null ? null : check(v));
};
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

/**
 * An object's check as one generated function, each field's test written out in the schema's order: ten thousand cubes are
 * checked before V8 optimizes anything, where a closure per field costs 3–4× as much. The value itself when it has exactly the
 * schema's keys and each passes unchanged; a copy with the schema's keys when it has others; NO at the first field that fails,
 * and for a value of another prototype than JSON.parse gives (it may inherit fields: zod reads it).
 */
function objectCheck(fields: Fields): Check {
  return compiled((ref) => {
    const lines = fields.map(([key, check, optional]) => {
      const name = JSON.stringify(key);
      const verdict = check.test
        ? `if (!(${check.test(ref)})) return NO;`
        : `y = ${ref(check)}(x); if (y === NO) return NO; if (y !== x) same = false;`;
      const absent = optional ? `if (${ref(Object.hasOwn)}(v, ${name})) return NO;` : "return NO;";
      return `x = v[${name}]; if (x === undefined) { ${absent} } else { ${verdict} present++; }`;
    });
    return `return function check(v) {
      if (typeof v !== "object" || v === null || ${ref(Object.getPrototypeOf)}(v) !== ${ref(Object.prototype)}) return NO;
      let present = 0, same = true, x, y;
      ${lines.join("\n      ")}
      return same && ${ref(keyCount)}(v) === present ? v : ${ref(copyOf)}(v, ${ref(fields)});
    };`;
  });
}

/** The function `source` returns, given NO and the values `ref` named for it. */
function compiled(source: (ref: (value: unknown) => string) => string): Check {
  const refs: unknown[] = [];
  const ref = (value: unknown): string => {
    const known = refs.indexOf(value);
    return `refs[${known >= 0 ? known : refs.push(value) - 1}]`;
  };
  const text = source(ref);
  return (new Function("NO", "refs", text) as (no: symbol, refs: unknown[]) => Check)(NO, refs);
}

/** The value's enumerable keys (an own "__proto__" included): a value with a key the schema lacks is copied. */
function keyCount(value: Json): number {
  let count = 0;
  for (const _ in value) count++;
  return count;
}

/** zod's output for a value objectCheck has checked: the schema's keys, in its order. */
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
      return checks.length === 0 && def.catchall === undefined
        ? objectCheck(fieldsOf(def.shape as Record<string, z.core.$ZodType>))
        : never;
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
  let pagination: Check | undefined;
  return (body) => {
    if (!isRecord(body) || !Array.isArray(body[key])) return undefined;
    item ??= checkOf(schema);
    pagination ??= objectCheck(fieldsOf(Pagination.shape));
    let page: Pagination | undefined;
    if (Object.hasOwn(body, "pagination")) {
      const checked = pagination(body.pagination);
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
