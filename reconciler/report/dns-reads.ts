/**
 * Reading DNS record views (GET …/domains/{id}/records) for many domains. The service checks live DNS there and rate-limits it, so reads go out with
 * bounded concurrency at a pace the user sets (--dns-concurrency, --dns-rate); one that still fails is "could not be checked", never drift.
 */
import type { CubeApi, Domain } from "../../client/api.js";
import type { Cube, DnsRecordStatus } from "../../schema/api.js";
import type { RateLimit } from "../session/rate-limit.js";
import { sleep } from "../../system/time.js";
import { drainPool, takeFrom, type Grant } from "../../system/concurrency.js";

export interface DnsReadPace {
  /** Record views read at the same time. */
  concurrency: number;
  /** Record views started per window, at most. */
  rate: RateLimit;
}

export const DEFAULT_DNS_PACE: DnsReadPace = { concurrency: 4, rate: { limit: 10, windowMs: 1_000 } };

export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: PaceClock = { now: () => performance.now(), sleep };

/**
 * `read` for every item, at most `pace.concurrency` at a time and at most `pace.rate.limit`
 * started in any `pace.rate.windowMs`; the answers in the items' order.
 */
export async function readPaced<T, R>(
  items: readonly T[],
  pace: DnsReadPace,
  read: (item: T) => Promise<R>,
  clock: PaceClock = realClock,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let started: Grant[] = [];
  /** Waits for a start slot in the window; the slot is taken synchronously once free. */
  const slot = async (): Promise<void> => {
    for (;;) {
      const now = clock.now();
      const taken = takeFrom(started, now, now - pace.rate.windowMs, pace.rate.limit, () => "");
      started = taken.grants;
      if ("id" in taken.result) return;
      await clock.sleep((taken.result.times[0] as number) + pace.rate.windowMs - now);
    }
  };
  await drainPool(items, pace.concurrency, async (item, index) => {
    await slot();
    results[index] = await read(item);
  });
  return results;
}

/** One domain's record view; a read that fails is "could not be checked" (`error`), never thrown. */
export async function readRecordView(
  client: CubeApi,
  cubeId: string,
  domainId: string,
): Promise<{ records: DnsRecordStatus[]; complete: boolean; error?: string }> {
  try {
    const view = await client.getDomainRecords(cubeId, domainId);
    return { records: view.records, complete: view.summary.complete };
  } catch (e) {
    return { records: [], complete: false, error: e instanceof Error ? e.message : String(e) };
  }
}

export interface DomainDns {
  hostname: string;
  domainId: string;
  records: DnsRecordStatus[];
  complete: boolean;
  /** Set when the records view could not be read at all. */
  error?: string;
}

export type CubeDns = { cube: { id: string; name: string }; domains: DomainDns[] };

/** The DNS records of a cube's domains, read at the given pace. */
export async function readCubeDns(client: CubeApi, cube: Cube, domains: Domain[], pace: DnsReadPace = DEFAULT_DNS_PACE): Promise<CubeDns> {
  const results = await readPaced(domains, pace, (domain) => readDomainDns(client, cube.id, domain));
  return { cube: { id: cube.id, name: cube.name }, domains: results };
}

async function readDomainDns(client: CubeApi, cubeId: string, domain: Domain): Promise<DomainDns> {
  return { hostname: domain.hostname, domainId: domain.id, ...(await readRecordView(client, cubeId, domain.id)) };
}
