/**
 * The quick check of cube list pages (client/fast-check.ts) against the zod schema it stands in
 * for: whatever it answers must be exactly zod's output (its keys in the schema's order, or in
 * the answer's when it answers the answer's own object), it must never answer a page zod
 * rejects, and it must answer the pages the API really sends.
 */
import { beforeAll, expect, test } from "vitest";
import { createClient, newIdempotencyKey } from "../../client/index.js";
import { startEmulator } from "../../emulator/index.js";
import { cubeBody, waitForState } from "./support/emulator.js";
import * as zm from "zod/mini";
import { cubePageOf, domainsOf, imagesOf, listOf, pricingOf, regionsOf, tcpMappingsOf } from "../../client/fast-check.js";
import { Cube, Domain, enveloped, Image, listEnveloped, Pricing, Region, TcpMapping } from "../../schema/api.js";
import { IMAGES, PRICING, REGIONS } from "../../emulator/resources/catalog.js";
import { sampleCube } from "./support/server.js";

const ListCubes = listEnveloped("cubes", Cube);

/**
 * A cube, one of its domains and one of its TCP mappings exactly as the emulator answers them
 * (its key order differs from the schema's): read from a running emulator, so the quick way is
 * checked against what the emulator of this commit sends.
 */
let EMULATOR_CUBE: Record<string, unknown>;
let EMULATOR_DOMAIN: Record<string, unknown>;
let EMULATOR_MAPPING: Record<string, unknown>;

beforeAll(async () => {
  const rateLimit = { limit: 1000, windowMs: 1000 };
  const emulator = await startEmulator({ clockSpeed: 200, rateLimit });
  const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, spaceId: emulator.spaceId, rateLimit });
  try {
    const cube = await client.createCube(cubeBody("c00000"), { idempotencyKey: newIdempotencyKey() });
    await waitForState(client, cube.id, "running");
    await client.attachDomain(cube.id, { hostname: "www.c00000.example.com", port: 8080 }, { idempotencyKey: newIdempotencyKey() });
    await client.createTcpMapping(
      cube.id,
      { cubePort: 5432, label: "postgres", udp: false, allow: ["10.0.0.0/8"] },
      { idempotencyKey: newIdempotencyKey() },
    );
    const answer = async (path: string): Promise<Record<string, Record<string, unknown>[]>> => {
      const response = await fetch(`${emulator.url}/spaces/${emulator.spaceId}${path}`, { headers: { "X-API-KEY": emulator.apiKey } });
      return (await response.json()) as Record<string, Record<string, unknown>[]>;
    };
    EMULATOR_CUBE = (await answer("/cubes?page=1&limit=100")).cubes![0]!;
    EMULATOR_DOMAIN = (await answer(`/cubes/${cube.id}/domains`)).domains![0]!;
    EMULATOR_MAPPING = (await answer(`/cubes/${cube.id}/tcp-mappings`)).tcpMappings!.find((m) => m.isSsh === false)!;
  } finally {
    await client.close();
    await emulator.close();
  }
});

const MINIMAL_CUBE = {
  id: "c1",
  name: "web",
  state: "stopped",
  publicIpv4: null,
  image: "debian-12",
  sshUser: "root",
  resources: { vcpu: 2, ramGb: 0.5, diskGb: 20 },
  terminationProtection: true,
  terminationProtectionChangedAt: "2026-01-01T00:00:00Z",
  terminationProtectionChangedBy: "user:u1",
};
const PAGINATION = { page: 1, limit: 100, total: 2, totalPages: 1 };

const page = (cubes: unknown[], extra: Record<string, unknown> = { pagination: PAGINATION }) => ({ cubes, ...extra });

function agrees(
  body: unknown,
  quickOf: (body: unknown) => unknown = cubePageOf,
  schema: { safeParse(body: unknown): { success: boolean; data?: unknown } } = ListCubes,
): "quick" | "zod" {
  const quick = quickOf(body);
  const parsed = schema.safeParse(body);
  if (quick === undefined) return "zod";
  expect(parsed.success, JSON.stringify(body)).toBe(true);
  expect(sortedJson(quick)).toBe(sortedJson(parsed.data));
  expect(quick).toStrictEqual(parsed.data);
  return "quick";
}

/** JSON with every object's keys sorted: equal for equal values whatever their key order. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

const ODD_VALUES: unknown[] = [
  undefined,
  null,
  "",
  "x",
  0,
  -0,
  1,
  1.5,
  -3,
  1e20,
  Number.MAX_SAFE_INTEGER + 1,
  true,
  false,
  [],
  {},
  { vcpu: 1 },
  ["running"],
];

function mutations(cube: Record<string, unknown>, extraKeys: string[] = ["serverDomain", "costPerHour", "region", "createdAt"]): unknown[] {
  const out: unknown[] = [];
  const keys = [...Object.keys(cube), ...extraKeys, "unknownKey", "__proto__"];
  for (const key of keys) {
    const { [key]: _dropped, ...without } = cube;
    out.push(without);
    for (const value of ODD_VALUES) out.push({ ...cube, [key]: value });
    for (const value of ODD_VALUES)
      out.push({
        ...cube,
        resources: { ...(cube.resources as object), [key === "id" ? "vcpu" : key === "name" ? "ramGb" : "diskGb"]: value },
      });
  }
  out.push(Object.fromEntries(Object.entries(cube).reverse()));
  out.push(JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(cube).slice(1)}`));
  return out;
}

test("the pages the API sends are answered quickly, and exactly as zod reads them", () => {
  expect(agrees(page([EMULATOR_CUBE, MINIMAL_CUBE, sampleCube("c3")]))).toBe("quick");
  expect(agrees(page([]))).toBe("quick");
  expect(agrees({ cubes: [EMULATOR_CUBE] })).toBe("quick");
  expect(agrees(page([EMULATOR_CUBE], { pagination: PAGINATION, extra: 1 }))).toBe("quick");
});

test("an answer with exactly the schema's keys is answered as it is; one with more keys as zod's copy, in the schema's order", () => {
  const exact = page([EMULATOR_CUBE, MINIMAL_CUBE]);
  const quick = cubePageOf(exact)!;
  expect(quick.items[0]).toBe(exact.cubes[0]);
  expect(quick.items[1]).toBe(exact.cubes[1]);
  const extra = { ...MINIMAL_CUBE, unknownKey: 1 };
  const copied = cubePageOf(page([extra]))!.items[0]!;
  expect(copied).not.toBe(extra);
  expect(JSON.stringify(copied)).toBe(JSON.stringify(ListCubes.parse(page([extra])).items[0]));
  expect(copied).not.toHaveProperty("unknownKey");

  // A cube with a prototype of its own (were a library to make one) may inherit keys or fields: it is zod's to read.
  const inheriting = Object.assign(Object.create({ inherited: 1 }) as object, MINIMAL_CUBE);
  expect(agrees(page([inheriting]))).toBe("zod");
  const inheritedField: Record<string, unknown> = Object.assign(Object.create({ id: "from-the-prototype" }) as object, MINIMAL_CUBE);
  delete inheritedField.id;
  expect(agrees(page([inheritedField]))).toBe("zod");
});

test("any one field changed, dropped or added: the quick check answers as zod or leaves it to zod", () => {
  const answered = { quick: 0, zod: 0 };
  for (const base of [EMULATOR_CUBE, MINIMAL_CUBE, sampleCube("c9")] as Record<string, unknown>[]) {
    for (const cube of mutations(base)) answered[agrees(page([EMULATOR_CUBE, cube]))]++;
  }
  for (const value of ODD_VALUES) {
    answered[agrees(page([EMULATOR_CUBE], { pagination: value }))]++;
    answered[agrees(page([EMULATOR_CUBE], { pagination: { ...PAGINATION, totalPages: value } }))]++;
    answered[agrees({ cubes: value, pagination: PAGINATION })]++;
    answered[agrees(value)]++;
  }
  answered[agrees([EMULATOR_CUBE])]++;
  expect(answered.quick).toBeGreaterThan(50);
  expect(answered.zod).toBeGreaterThan(200);
});

const ListDomains = listEnveloped("domains", Domain);
const ListTcpMappings = listEnveloped("tcpMappings", TcpMapping);

test("domains and TCP mappings: the API's answers go the quick way; any one change answers as zod or is left to zod", () => {
  const cases = [
    {
      key: "domains",
      quick: domainsOf,
      schema: ListDomains,
      base: EMULATOR_DOMAIN,
      extra: ["ingressStatus", "securityHeadersMode", "corsConfig", "proxyProtocol", "wildcardCertState", "ipAllowList"],
    },
    { key: "tcpMappings", quick: tcpMappingsOf, schema: ListTcpMappings, base: EMULATOR_MAPPING, extra: ["createdAt", "whitelistedIps"] },
  ];
  for (const { key, quick, schema, base, extra } of cases) {
    const answered = { quick: 0, zod: 0 };
    expect(agrees({ [key]: [base, base] }, quick, schema)).toBe("quick");
    expect(agrees({ [key]: [] }, quick, schema)).toBe("quick");
    for (const item of mutations(base, extra)) answered[agrees({ [key]: [base, item] }, quick, schema)]++;
    const odd = [
      { ...base, ipAllowList: ["10.0.0.0/8", 1] },
      { ...base, ipAllowList: ["10.0.0.0/8"], ipDenyList: [] },
      { ...base, proxyProtocol: "v2", wildcardCertState: "ready", originScheme: "https" },
      { ...base, proxyProtocol: "v3" },
      { ...base, corsConfig: { allowedOrigins: ["https://a.example"] } },
      { ...base, responseHeaderOverrides: { set: { a: "b" } } },
      { ...base, whitelistedIps: [] },
      { ...base, whitelistedIps: [{ id: "w", cidr: "1.2.3.4/32", extra: 1 }] },
      { ...base, whitelistedIps: [{ id: "w" }] },
      { ...base, whitelistedIps: null },
    ];
    for (const item of odd) answered[agrees({ [key]: [item] }, quick, schema)]++;
    expect(answered.quick).toBeGreaterThan(20);
    expect(answered.zod).toBeGreaterThan(100);
  }
});

test("the prices (GET /pricing, read by every plan): the API's answer goes the quick way; any one change answers as zod or is left to zod", () => {
  const OnePricing = enveloped("pricing", Pricing);
  const base = JSON.parse(JSON.stringify(PRICING)) as Record<string, unknown>;
  expect(agrees({ pricing: base }, pricingOf, OnePricing)).toBe("quick");
  expect(agrees(base, pricingOf, OnePricing)).toBe("quick");
  const answered = { quick: 0, zod: 0 };
  const tier = (base.tiers as Record<string, unknown>[])[0]!;
  for (const key of [...Object.keys(base), ...Object.keys(tier), "vcpuPerHour", "unknownKey", "pricing"]) {
    const { [key]: _dropped, ...without } = base;
    for (const body of [without, { pricing: without }]) answered[agrees(body, pricingOf, OnePricing)]++;
    for (const value of ODD_VALUES) {
      const changed = [
        { ...base, [key]: value },
        { ...base, tiers: [tier, { ...tier, [key]: value }] },
        { ...base, rates: { ...(base.rates as object), [key]: value } },
      ];
      for (const body of changed)
        for (const enveloping of [body, { pricing: body }, { pricing: body, [key]: value }])
          answered[agrees(enveloping, pricingOf, OnePricing)]++;
    }
  }
  for (const value of ODD_VALUES) answered[agrees(value, pricingOf, OnePricing)]++;
  expect(answered.quick).toBeGreaterThan(50);
  expect(answered.zod).toBeGreaterThan(200);
});

test("regions and images (checked before cubes are created): the API's answers go the quick way; any one change answers as zod or is left to zod", () => {
  const cases = [
    { key: "regions", quick: regionsOf, schema: listEnveloped("regions", Region), items: REGIONS },
    { key: "images", quick: imagesOf, schema: listEnveloped("images", Image), items: IMAGES },
  ];
  for (const { key, quick, schema, items } of cases) {
    const base = items[0] as unknown as Record<string, unknown>;
    expect(agrees({ [key]: items }, quick, schema)).toBe("quick");
    const answered = { quick: 0, zod: 0 };
    for (const item of mutations(base, [])) answered[agrees({ [key]: [base, item] }, quick, schema)]++;
    expect(answered.quick).toBeGreaterThan(5);
    expect(answered.zod).toBeGreaterThan(40);
  }
});

test("a field added to the zod schema is checked the quick way with no other edit; a field zod checks further is zod's", () => {
  const WithIpv6 = zm.extend(Cube, { publicIpv6: zm.nullable(zm.string()), cores: zm.optional(zm.array(zm.number().check(zm.int()))) });
  const quick = listOf("cubes", WithIpv6);
  const schema = listEnveloped("cubes", WithIpv6);
  const cube = { ...MINIMAL_CUBE, publicIpv6: "2001:db8::1", cores: [0, 1] };
  expect(agrees(page([cube]), quick, schema)).toBe("quick");
  expect(quick(page([cube]))!.items[0]).toBe(cube);
  for (const odd of [{ ...cube, publicIpv6: 6 }, { ...cube, cores: [0.5] }, MINIMAL_CUBE])
    expect(agrees(page([odd]), quick, schema)).toBe("zod");
  expect(agrees(page([{ ...cube, cores: undefined }]), quick, schema)).toBe("zod");
  expect(agrees(page([{ ...cube, publicIpv6: null, cores: [] }]), quick, schema)).toBe("quick");

  const Limited = zm.extend(Cube, { tags: zm.array(zm.string()).check(zm.maxLength(2)) });
  expect(agrees(page([{ ...MINIMAL_CUBE, tags: ["a", "b", "c"] }]), listOf("cubes", Limited), listEnveloped("cubes", Limited))).toBe("zod");
});
