/**
 * observe: read the space through the client. Cubes (every page), then each cube's domains
 * and TCP mappings with bounded concurrency (reads are not rate limited).
 */
import type { CubeApi } from "../client/api.js";
import type { Cube } from "../schema/api.js";
import { isNotFound } from "./context.js";
import type { EngineLogger, ObservedCube, ObservedState } from "./types.js";

export interface ObserveOptions {
  /** Parallel sub-resource reads (default 16). */
  concurrency?: number;
  /** Targets: only these cubes' domains and mappings are read (others are listed with none). */
  cubeNames?: string[];
  logger?: EngineLogger;
  /** Injectable clock for observedAt. */
  now?: () => Date;
}

export async function observe(client: CubeApi, options: ObserveOptions = {}): Promise<ObservedState> {
  const readsBefore = client.stats?.reads;
  const spaceId = await client.spaceId();
  const cubes = (await client.listCubes()).filter((cube) => cube.state !== "deleted");
  const wanted = options.cubeNames && options.cubeNames.length > 0 ? new Set(options.cubeNames) : undefined;
  let subReads = 0;
  const observed = await mapBounded(cubes, options.concurrency ?? 16, async (cube) => {
    if (wanted && !wanted.has(cube.name)) return { cube, domains: [], tcpMappings: [] };
    subReads += 2;
    return readSubResources(client, cube);
  });
  const present = observed.filter((cube): cube is ObservedCube => cube !== undefined);
  const reads = readsBefore !== undefined && client.stats ? client.stats.reads - readsBefore : 1 + subReads;
  options.logger?.({ type: "observe", message: `${present.length} cubes, ${reads} reads` });
  return { spaceId, cubes: present, reads, observedAt: (options.now?.() ?? new Date()).toISOString() };
}

/** undefined: the cube went away while being read (a delete in progress). */
async function readSubResources(client: CubeApi, cube: Cube): Promise<ObservedCube | undefined> {
  try {
    const [domains, tcpMappings] = await Promise.all([client.listDomains(cube.id), client.listTcpMappings(cube.id)]);
    return { cube, domains, tcpMappings };
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export async function mapBounded<T, R>(items: T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
