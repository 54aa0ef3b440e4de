/** A scripted CubeApi for executor and observe tests: records calls, answers from plain data. */
import type { CubeApi, Domain, TcpMapping } from "../../client/api.js";
import type { Cube } from "../../schema/api.js";
import { cube as makeCube } from "./fixtures.js";

export class ApiFailure extends Error {
  constructor(
    readonly code: string,
    message = code,
  ) {
    super(message);
  }
}

export interface FakeClient extends CubeApi {
  calls: string[];
  /** States getCube returns in turn for a cube id (the last one repeats). */
  states: Map<string, Cube["state"][]>;
  failures: Map<string, ApiFailure>;
  keys: string[];
}

export function fakeClient(
  init: { cubes?: Cube[]; domains?: Record<string, Domain[]>; mappings?: Record<string, TcpMapping[]> } = {},
): FakeClient {
  const cubes = new Map((init.cubes ?? []).map((c) => [c.id, c]));
  const stats = { reads: 0, mutations: 0, retries: 0, rateLimited: 0 };
  const client = {
    calls: [] as string[],
    states: new Map<string, Cube["state"][]>(),
    failures: new Map<string, ApiFailure>(),
    keys: [] as string[],
    stats,
  };
  const record = (name: string, mutation: boolean): void => {
    client.calls.push(name);
    if (mutation) stats.mutations += 1;
    else stats.reads += 1;
    const failure = client.failures.get(name);
    if (failure) throw failure;
  };
  const api: Partial<CubeApi> = {
    spaceId: async () => "space-1",
    listCubes: async () => {
      record("listCubes", false);
      stats.reads += 1; // a second page
      return [...cubes.values()];
    },
    getCube: async (id) => {
      record(`getCube ${id}`, false);
      const sequence = client.states.get(id);
      const state = sequence && sequence.length > 1 ? sequence.shift() : sequence?.[0];
      if (state === undefined && !cubes.has(id)) throw new ApiFailure("not_found");
      return { ...(cubes.get(id) ?? makeCube(id)), state: state ?? cubes.get(id)?.state ?? "running" };
    },
    listDomains: async (id) => {
      record(`listDomains ${id}`, false);
      return init.domains?.[id] ?? [];
    },
    listTcpMappings: async (id) => {
      record(`listTcpMappings ${id}`, false);
      return init.mappings?.[id] ?? [];
    },
    createCube: async (body, options) => {
      client.keys.push(options.idempotencyKey);
      record(`createCube ${body.name}`, true);
      return makeCube(body.name, { id: `new-${body.name}`, state: "pending" });
    },
    powerOff: async (id) => record(`powerOff ${id}`, true),
    wake: async (id) => record(`wake ${id}`, true),
    deleteCube: async (id) => record(`deleteCube ${id}`, true),
    setTerminationProtection: async (id, value) => {
      record(`setTerminationProtection ${id} ${value}`, true);
      return makeCube(id, { terminationProtection: value });
    },
  };
  return Object.assign(api, client) as FakeClient;
}

/** A clock that advances only when the code under test sleeps: waits take no real time. */
export function fakeClock(start = Date.parse("2026-01-01T00:00:00Z")) {
  let now = start;
  return { now: () => now, sleep: async (ms: number) => void (now += ms), elapsed: () => now - start };
}
