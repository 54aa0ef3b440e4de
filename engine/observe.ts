/**
 * observe: read the space through the client. Cubes (every page), then each cube's domains
 * and TCP mappings with bounded concurrency (reads are not rate limited).
 */
import type { CubeApi } from "../client/api.js";
import type { Cube, Domain, TcpMapping, Webhook } from "../schema/api.js";
import { isNotFound } from "./context.js";
import type { EngineLogger, ObservedCube, ObservedState } from "./types.js";

export interface ObserveOptions {
  /** Parallel sub-resource reads (default 16). */
  concurrency?: number;
  /** Targets: only these cubes' domains and mappings are read (others are listed with none). */
  cubeNames?: string[];
  logger?: EngineLogger;
  /** Also list the space's webhook endpoints (when the desired state manages them). */
  webhooks?: boolean;
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
  const webhooks = options.webhooks ? await readWebhooks(client) : undefined;
  const reads = readsBefore !== undefined && client.stats ? client.stats.reads - readsBefore : 1 + subReads + (webhooks ? 1 : 0);
  options.logger?.({ type: "observe", message: `${present.length} cubes, ${reads} reads` });
  return { spaceId, cubes: present, ...(webhooks ? { webhooks } : {}), reads, observedAt: (options.now?.() ?? new Date()).toISOString() };
}

/** undefined: the cube went away while being read (a delete in progress). */
async function readSubResources(client: CubeApi, cube: Cube): Promise<ObservedCube | undefined> {
  try {
    const [domains, tcpMappings] = await Promise.all([client.listDomains(cube.id), client.listTcpMappings(cube.id)]);
    shareEqualStrings(cube, domains, tcpMappings);
    return { cube, domains, tcpMappings };
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/**
 * Equal strings of one cube's resources made one: each answer's JSON gives every domain and
 * mapping its own copy of the cube's id, of the mapping host and of a timestamp repeated as
 * updatedAt (~5 MB of copies at 10,000 cubes, held until the plan is printed). Values unchanged.
 */
function shareEqualStrings(cube: Cube, domains: Domain[], mappings: TcpMapping[]): void {
  for (const item of [...domains, ...mappings]) {
    if (item.cubeId === cube.id) item.cubeId = cube.id;
    if (item.updatedAt !== undefined && item.updatedAt === item.createdAt) item.updatedAt = item.createdAt;
  }
  const host = mappings[0]?.host;
  for (const mapping of mappings) if (mapping.host === host) mapping.host = host;
}

/** The list omits each endpoint's description; the single GET has it. */
async function readWebhooks(client: CubeApi): Promise<Webhook[]> {
  const listed = await client.listWebhooks();
  const read = await mapBounded(listed, 8, async (webhook) => {
    if (webhook.description !== undefined) return webhook;
    try {
      return await client.getWebhook(webhook.id);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  });
  return read.filter((webhook): webhook is Webhook => webhook !== undefined);
}

export async function mapBounded<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
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
