/** Injected faults on /api/v1 requests (admin surface and tests). */
import type { FaultSpec } from "../types.js";

export class FaultList {
  private faults: (FaultSpec & { remaining: number; pattern?: RegExp })[] = [];

  add(fault: FaultSpec): void {
    const pattern = fault.path === undefined ? undefined : new RegExp(fault.path);
    this.faults.push({ ...fault, method: fault.method?.toUpperCase(), remaining: fault.times ?? 1, pattern });
  }

  clear(): void {
    this.faults = [];
  }

  /** The first fault matching the request, consuming one of its uses. */
  take(method: string, path: string): FaultSpec | undefined {
    const fault = this.faults.find((f) => (!f.method || f.method === method) && (!f.pattern || f.pattern.test(path)));
    if (!fault) return undefined;
    fault.remaining--;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }
}
