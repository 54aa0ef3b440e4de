/**
 * observe: read the space through the client. Cubes (every page), then each cube's domains
 * and TCP mappings with bounded concurrency (reads are not rate limited).
 */
import type { CubeApi } from "../client/api.js";
import type { Domain, TcpMapping } from "../client/api.js";
import type { Cube, Webhook } from "../schema/api.js";
import { ignoreNotFound } from "./context.js";
import { limiter, mapBounded } from "../system/concurrency.js";
import type { EngineLogger, ObservedCube, ObservedState } from "./types.js";

export interface ObserveOptions {
  /** Cubes read at once, two reads each (default 16). */
  concurrency?: number;
  /** Cubes to read at once for the round trip measured by the first reads (ms): called once, to widen on a slow network. */
  concurrencyFor?: (roundTripMs: number) => number;
  /** Targets: only these cubes' domains and mappings are read (others are listed with none). */
  cubeNames?: string[];
  logger?: EngineLogger;
  /** Also list the space's webhook endpoints (when the desired state manages them). */
  webhooks?: boolean;
  /** Injectable clock for observedAt. */
  now?: () => Date;
  /** The cube list is complete (deleted cubes left out); their reads may still be under way. */
  onListed?: (cubes: readonly Cube[]) => void;
  /** One cube is read with its domains and mappings (a cube no target names is not read: it is only in the observed state, with none). */
  onRead?: (cube: ObservedCube) => void;
}

export async function observe(client: CubeApi, options: ObserveOptions = {}): Promise<ObservedState> {
  const readsBefore = client.stats?.reads;
  const spaceId = await client.spaceId();
  const wanted = options.cubeNames && options.cubeNames.length > 0 ? new Set(options.cubeNames) : undefined;
  const listedOnly = (cube: Cube): boolean => wanted !== undefined && !wanted.has(cube.name);
  let subReads = 0;
  // Each cube's domains and mappings are read as soon as its page is in, while later pages are
  // read; a cube no target names is observed as listed, with none (made once the list is in:
  // thousands of them in a --target plan, nothing to do for each while the pages come).
  const observedById = new Map<string, ObservedCube | undefined>();
  const subReading: Promise<void>[] = [];
  const limit = limiter(options.concurrency ?? 16);
  const timed = roundTripMeter(options.concurrencyFor, limit.resize);
  const startReading = (cube: Cube): void => {
    if (cube.state === "deleted" || listedOnly(cube) || observedById.has(cube.id)) return;
    subReads += 2;
    observedById.set(cube.id, undefined);
    const read = limit(() => timed(() => readSubResources(client, cube))).then((observed) => {
      observedById.set(cube.id, observed);
      if (observed !== undefined) options.onRead?.(observed);
    });
    // Awaited below, after the walk: until then a failure must not count as unhandled.
    read.catch(() => {});
    subReading.push(read);
  };
  let cubes: Cube[];
  let handed = false;
  try {
    const listed = await client.listCubes({
      onCubes: (seen) => {
        handed = true;
        seen.forEach(startReading);
      },
    });
    cubes = listed.filter((cube) => cube.state !== "deleted");
  } catch (e) {
    limit.stop();
    throw e;
  }
  // A client that hands out no cubes as its pages come in: their reads start now.
  if (!handed) cubes.forEach(startReading);
  options.onListed?.(cubes);
  await Promise.all(subReading);
  const present: ObservedCube[] = [];
  for (const cube of cubes) {
    if (listedOnly(cube)) present.push({ cube, domains: NONE, tcpMappings: NONE });
    else {
      const observed = observedById.get(cube.id);
      if (observed !== undefined) present.push(observed);
    }
  }
  const webhooks = options.webhooks ? await readWebhooks(client) : undefined;
  const reads = readsBefore !== undefined && client.stats ? client.stats.reads - readsBefore : 1 + subReads + (webhooks ? 1 : 0);
  options.logger?.({ type: "observe", message: `${present.length} cubes, ${reads} reads` });
  return { spaceId, cubes: present, ...(webhooks ? { webhooks } : {}), reads, observedAt: (options.now?.() ?? new Date()).toISOString() };
}

/** Reads timed before the concurrency is chosen: the fastest of them is the round trip, not the server's queue. */
const ROUND_TRIP_SAMPLES = 16;

/** Times the first reads; once ROUND_TRIP_SAMPLES are in, resizes to what `concurrencyFor` answers for the fastest. */
function roundTripMeter(concurrencyFor: ((roundTripMs: number) => number) | undefined, resize: (concurrency: number) => void) {
  let samples = concurrencyFor === undefined ? ROUND_TRIP_SAMPLES : 0;
  let fastest = Infinity;
  return async <R>(read: () => Promise<R>): Promise<R> => {
    if (samples >= ROUND_TRIP_SAMPLES) return read();
    const started = performance.now();
    const result = await read();
    fastest = Math.min(fastest, performance.now() - started);
    if (++samples === ROUND_TRIP_SAMPLES) resize(concurrencyFor!(fastest));
    return result;
  };
}

/** What a cube no target names is observed with: one empty list for thousands of them (nothing adds to an observed list). */
const NONE: never[] = [];

/** undefined: the cube went away while being read (a delete in progress). */
async function readSubResources(client: CubeApi, cube: Cube): Promise<ObservedCube | undefined> {
  const read = await ignoreNotFound(Promise.all([client.listDomains(cube.id), client.listTcpMappings(cube.id)]));
  if (read === undefined) return undefined;
  const [domains, tcpMappings] = read;
  shareEqualStrings(cube, domains, tcpMappings);
  return { cube, domains, tcpMappings };
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
    return ignoreNotFound(client.getWebhook(webhook.id));
  });
  return read.filter((webhook): webhook is Webhook => webhook !== undefined);
}
