/**
 * The quick check of cube list pages (client/fast-check.ts) against the zod schema it stands in
 * for: whatever it answers must be exactly zod's output (keys and their order included), it
 * must never answer a page zod rejects, and it must answer the pages the API really sends.
 */
import { expect, test } from "vitest";
import { cubePageOf } from "../../client/fast-check.js";
import { Cube, listEnveloped } from "../../schema/api.js";
import { sampleCube } from "./support/server.js";

const ListCubes = listEnveloped("cubes", Cube);

/** A cube as the emulator lists it (its key order differs from the schema's). */
const EMULATOR_CUBE = {
  id: "cube_9737e4694173",
  name: "c00000",
  state: "running",
  publicIpv4: "203.0.113.10",
  image: "ubuntu-24.04",
  sshUser: "ubuntu",
  resources: { vcpu: 1, ramGb: 2, diskGb: 10 },
  costPerHour: 0.0085,
  region: "eu-nuremberg",
  terminationProtection: false,
  terminationProtectionChangedAt: null,
  terminationProtectionChangedBy: null,
  createdAt: "2026-11-23T17:43:26.312Z",
  updatedAt: "2026-11-23T17:43:31.312Z",
};
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

function agrees(body: unknown): "quick" | "zod" {
  const quick = cubePageOf(body);
  const parsed = ListCubes.safeParse(body);
  if (quick === undefined) return "zod";
  expect(parsed.success, JSON.stringify(body)).toBe(true);
  expect(JSON.stringify(quick)).toBe(JSON.stringify(parsed.data));
  expect(quick).toStrictEqual(parsed.data);
  return "quick";
}

const ODD_VALUES: unknown[] = [undefined, null, "", "x", 0, -0, 1, 1.5, -3, 1e20, Number.MAX_SAFE_INTEGER + 1, true, false, [], {}, { vcpu: 1 }, ["running"]];

function mutations(cube: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  const keys = [...Object.keys(cube), "serverDomain", "costPerHour", "region", "createdAt", "unknownKey", "__proto__"];
  for (const key of keys) {
    const { [key]: _dropped, ...without } = cube;
    out.push(without);
    for (const value of ODD_VALUES) out.push({ ...cube, [key]: value });
    for (const value of ODD_VALUES) out.push({ ...cube, resources: { ...(cube.resources as object), [key === "id" ? "vcpu" : key === "name" ? "ramGb" : "diskGb"]: value } });
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
