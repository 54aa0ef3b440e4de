/**
 * Injected faults on /api/v1 requests. Counted ones (looked at first) hit the next `times` matching requests;
 * rate-based ones (`rate`) hit each matching request with that probability until cleared, drawn from a seeded
 * generator so a failing test can be replayed; the first added whose draw hits wins. `statuses` spreads a status
 * fault over a class (e.g. [500, 502, 503]).
 */
import type { FaultSpec } from "../types.js";

type Armed = FaultSpec & { pattern?: RegExp };

/** mulberry32: a small, fast, seeded generator (not for secrets). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const matches = (f: Armed, method: string, path: string): boolean =>
  (!f.method || f.method === method) && (!f.pattern || f.pattern.test(path));

export class FaultList {
  private faults: (Armed & { remaining: number })[] = [];
  private rated: (Armed & { random: () => number })[] = [];

  add(fault: FaultSpec): void {
    const armed = { ...fault, method: fault.method?.toUpperCase(), pattern: fault.path === undefined ? undefined : new RegExp(fault.path) };
    if (fault.rate !== undefined) this.rated.push({ ...armed, random: seededRandom(fault.seed ?? 1 + this.rated.length) });
    else this.faults.push({ ...armed, remaining: fault.times ?? 1 });
  }

  clear(): void {
    this.faults = [];
    this.rated = [];
  }

  /** The fault for this request, if any: a counted one (using one of its uses), else a rate draw. */
  take(method: string, path: string): FaultSpec | undefined {
    const fault = this.faults.find((f) => matches(f, method, path));
    if (fault) {
      fault.remaining--;
      if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
      return fault;
    }
    for (const rated of this.rated) {
      if (!matches(rated, method, path) || rated.random() >= (rated.rate ?? 0)) continue;
      if (rated.statuses && rated.statuses.length > 0)
        return { ...rated, status: rated.statuses[Math.floor(rated.random() * rated.statuses.length)] };
      return rated;
    }
    return undefined;
  }
}
