import { describe, expect, test } from "vitest";
import { FaultList } from "../../emulator/core/faults.js";

function hits(list: FaultList, n: number, method = "GET", path = "/api/v1/spaces/s/cubes"): (number | string | undefined)[] {
  return Array.from({ length: n }, () => {
    const fault = list.take(method, path);
    return fault === undefined ? undefined : (fault.status ?? fault.kind);
  });
}

describe("rate-based, seeded faults", () => {
  test("about `rate` of the matching requests are hit, until cleared; other routes never", () => {
    const list = new FaultList();
    list.add({ kind: "status", statuses: [500, 502, 503, 504], rate: 0.2, seed: 7, method: "POST", path: "/cubes$" });
    const posts = hits(list, 2000, "POST");
    const hit = posts.filter((h) => h !== undefined);
    expect(hit.length).toBeGreaterThan(340);
    expect(hit.length).toBeLessThan(460);
    expect(new Set(hit)).toEqual(new Set([500, 502, 503, 504]));
    expect(hits(list, 200, "GET").every((h) => h === undefined)).toBe(true);
    list.clear();
    expect(hits(list, 200, "POST").every((h) => h === undefined)).toBe(true);
  });

  test("one seed, one sequence (a failing run can be replayed); another seed, another", () => {
    const make = (seed: number) => {
      const list = new FaultList();
      list.add({ kind: "drop-after-commit", rate: 0.1, seed });
      return hits(list, 500);
    };
    expect(make(3)).toEqual(make(3));
    expect(make(3)).not.toEqual(make(4));
  });

  test("counted faults come first; rate faults in the order added", () => {
    const list = new FaultList();
    list.add({ kind: "status", status: 429, rate: 1, seed: 1 });
    list.add({ kind: "status", status: 503, times: 1 });
    expect(hits(list, 3)).toEqual([503, 429, 429]);
  });
});
