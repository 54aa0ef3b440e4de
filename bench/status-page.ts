/**
 * Issue 37: the status page at 10,000 cubes with 100 rounds of history, and what keeping that history costs watch's memory.
 *
 *   node --expose-gc --import tsx bench/status-page.ts [cubes=10000] [requests=500]
 *
 * A WatchStatusRecorder (the one watch uses) is fed 100 rounds as the loop reports them, each with a fresh plan of CUBES cubes in which every
 * cube drifted (the largest drift list there is: the page lists 100 of them and counts the rest). Then the real HTTP server (serveMetrics with
 * the page) answers REQUESTS sequential GET / and GET /status over keep-alive loopback, after 50 warm-up requests: the median and p95 wall
 * time from the request to the last byte of the body. Memory: the heap after a full GC with the history kept, against the heap before the
 * first round (the plans themselves are dropped, as watch drops them after each round): what the history retains.
 */
import { Agent, request } from "undici";
import type { Plan, ResourceChange } from "../engine/index.js";
import { WatchStatusRecorder } from "../reconciler/metrics/status.js";
import { change, costOf, servePageOf } from "../test/status-page/plans.js";

const CUBES = Number(process.argv[2] ?? 10_000);
const REQUESTS = Number(process.argv[3] ?? 500);
const ROUNDS = 100;

const gc = (globalThis as { gc?: () => void }).gc;

function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

function planOf(cubes: number, round: number): { plan: Plan; drift: ResourceChange[] } {
  const changes: ResourceChange[] = [];
  for (let i = 0; i < cubes; i++) changes.push(change(`web-${i}`, "update", ["resources.vcpu"], `cube_${round}_${i}`));
  const plan = {
    formatVersion: 1,
    createdAt: new Date().toISOString(),
    spaceId: "spc_bench",
    changes,
    steps: [],
    summary: { add: 0, change: cubes, destroy: 0, blocked: 0 },
    options: {},
    cost: costOf(cubes * 4.75, cubes * 5.5, 100_000),
    groups: Array.from({ length: 20 }, (_, g) => ({
      name: `group-${g}`,
      replicas: 10,
      live: 10,
      replacing: g % 3,
      rollout: { batches: 5 },
    })),
  } as unknown as Plan;
  return { plan, drift: changes };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}

/** The loop's reports of 100 rounds, each with its own plan (dropped after the round, as watch drops it). */
function feedRounds(recorder: WatchStatusRecorder): void {
  const start = Date.now() - ROUNDS * 60_000;
  for (let round = 1; round <= ROUNDS; round++) {
    const { plan, drift } = planOf(CUBES, round);
    const startedAt = start + round * 60_000;
    recorder.roundStarted(round);
    recorder.observer.roundStarted?.({ round, trigger: "interval", startedAt });
    const failed = round % 17 === 0;
    recorder.observer.roundEnded?.({
      round,
      trigger: "interval",
      startedAt,
      finishedAt: startedAt + 4000 + (round % 7) * 300,
      outcome: failed ? "failed" : "succeeded",
      revision: "0123456789abcdef0123456789abcdef01234567",
      ...(failed ? { error: { code: "server_error", message: "the API answered 503" } } : {}),
      drift,
      repaired: round % 5 === 0 ? drift.slice(0, 50) : [],
      plan,
      applying: true,
      mutations: round % 5 === 0 ? 50 : 0,
      converged: false,
    });
    recorder.planned(drift.length, 0);
    recorder.roundEnded(failed ? "failed" : "succeeded", failed ? "the API answered 503" : undefined);
  }
}

async function main(): Promise<void> {
  if (gc === undefined) console.log("(run with node --expose-gc for the memory figure)");
  const recorder = new WatchStatusRecorder(
    { kind: "git", repo: "https://git.example.com/acme/fleet.git", ref: "main", path: "fleet/", files: [] },
    true,
  );
  recorder.connected("spc_bench", {
    pacer: {
      limit: 10,
      windowMs: 60_000,
      waiting: 0,
      store: { recent: () => [1, 2, 3], take: () => ({ id: "" }), redate: () => undefined },
    } as never,
  });
  const before = heapMb();
  feedRounds(recorder);
  const after = heapMb();
  console.log(
    `history of ${ROUNDS} rounds at ${CUBES} cubes (every cube drifted): the heap grows by ${(after - before).toFixed(2)} MB (${before.toFixed(1)} → ${after.toFixed(1)} MB after a full GC)`,
  );

  const server = await servePageOf(recorder);
  const dispatcher = new Agent({ connections: 1 });
  try {
    for (const path of ["/", "/status"]) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < REQUESTS + 50; i++) {
        const t0 = performance.now();
        const response = await request(`${server.url}${path}`, { dispatcher });
        const body = await response.body.text();
        const t = performance.now() - t0;
        if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode}`);
        bytes = body.length;
        if (i >= 50) times.push(t);
      }
      console.log(
        `GET ${path.padEnd(7)} at ${CUBES} cubes, ${ROUNDS} rounds: median ${median(times).toFixed(2)} ms, p95 ${p95(times).toFixed(2)} ms over ${REQUESTS} requests (${(bytes / 1024).toFixed(0)} KB)${path === "/" ? ` — target ≤ 20 ms: ${median(times) <= 20 ? "PASS" : "FAIL"}` : ""}`,
      );
    }
  } finally {
    await dispatcher.close();
    await server.close();
  }
}

await main();
