/**
 * A quicker way through the response check for the largest answers, the pages of the cube list
 * (100 pages at 10,000 cubes; zod costs ~4× their JSON.parse). For a page whose every field is
 * plainly valid, this builds exactly what the zod schema gives (the same keys in the schema's
 * order, unknown keys left out); for anything else it answers undefined and zod reads the page,
 * so zod's verdict and message stand wherever anything is unusual. The schema stays the one
 * source of truth: test/client/fast-check.test.ts compares the two on valid and broken pages.
 */
import { CubeState, type Cube, type CubeResources, type Pagination } from "../schema/api.js";

const CUBE_STATES: ReadonlySet<unknown> = new Set(CubeState.options);

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const isNullableString = (value: unknown): value is string | null => value === null || typeof value === "string";
/** zod's number: finite; int: a safe integer here (anything else is left to zod). */
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isInt = (value: unknown): value is number => Number.isSafeInteger(value);

/** A page of ListCubes (`{cubes, pagination}`) as the schema's envelope branch gives it, or undefined. */
export function cubePageOf(body: unknown): { items: Cube[]; pagination: Pagination | undefined } | undefined {
  if (!isRecord(body) || !Array.isArray(body.cubes)) return undefined;
  let pagination: Pagination | undefined;
  if (Object.hasOwn(body, "pagination")) {
    pagination = paginationOf(body.pagination);
    if (pagination === undefined) return undefined;
  }
  const items: Cube[] = [];
  for (const value of body.cubes as unknown[]) {
    const cube = cubeOf(value);
    if (cube === undefined) return undefined;
    items.push(cube);
  }
  return { items, pagination };
}

function paginationOf(value: unknown): Pagination | undefined {
  if (!isRecord(value)) return undefined;
  const { page, limit, total, totalPages } = value;
  return isInt(page) && isInt(limit) && isInt(total) && isInt(totalPages) ? { page, limit, total, totalPages } : undefined;
}

function resourcesOf(value: unknown): CubeResources | undefined {
  if (!isRecord(value)) return undefined;
  const { vcpu, ramGb, diskGb } = value;
  return isInt(vcpu) && isNumber(ramGb) && isInt(diskGb) ? { vcpu, ramGb, diskGb } : undefined;
}

/** A Cube as the schema gives it, or undefined (zod decides). */
export function cubeOf(value: unknown): Cube | undefined {
  if (!isRecord(value)) return undefined;
  const v = value;
  const { id, name, state, publicIpv4, image, sshUser, terminationProtection } = v;
  const changedAt = v.terminationProtectionChangedAt;
  const changedBy = v.terminationProtectionChangedBy;
  if (typeof id !== "string" || typeof name !== "string" || !CUBE_STATES.has(state) || !isNullableString(publicIpv4)) return undefined;
  if (typeof image !== "string" || typeof sshUser !== "string" || typeof terminationProtection !== "boolean") return undefined;
  if (!isNullableString(changedAt) || !isNullableString(changedBy)) return undefined;
  const resources = resourcesOf(v.resources);
  if (resources === undefined) return undefined;
  const cube: Cube = {
    id,
    name,
    state: state as CubeState,
    publicIpv4,
    image,
    sshUser,
    resources,
    terminationProtection,
    terminationProtectionChangedAt: changedAt,
    terminationProtectionChangedBy: changedBy,
  };
  if (Object.hasOwn(v, "costPerHour")) {
    if (!isNumber(v.costPerHour)) return undefined;
    cube.costPerHour = v.costPerHour;
  }
  if (Object.hasOwn(v, "serverDomain")) {
    if (!isNullableString(v.serverDomain)) return undefined;
    cube.serverDomain = v.serverDomain;
  }
  for (const key of ["region", "createdAt", "updatedAt"] as const) {
    if (!Object.hasOwn(v, key)) continue;
    const text = v[key];
    if (typeof text !== "string") return undefined;
    cube[key] = text;
  }
  return cube;
}
