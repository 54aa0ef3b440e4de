/** A status server as watch serves it (serveMetrics with the page), around a recorder the test feeds rounds to. */
import type { Plan, ResourceChange } from "../../engine/index.js";
import type { MetricsServer } from "../../reconciler/metrics/server.js";
import type { WatchStatusRecorder, LiveSources } from "../../reconciler/metrics/status.js";
import type { StatusAuth } from "../../reconciler/metrics/status-auth.js";
import type { RoundEnd } from "../../reconciler/watch/events.js";
import { onTestFinished } from "vitest";
import { change, costOf, servePageOf } from "./plans.js";

export async function statusServer(
  recorder: WatchStatusRecorder,
  auth?: StatusAuth,
  redact: (text: string) => string = (t) => t,
): Promise<MetricsServer> {
  const server = await servePageOf(recorder, auth, redact);
  onTestFinished(() => server.close());
  return server;
}

export { change };

/** A plan with `cubes` live cubes (noops), the drift, a cost and groups. */
export function planOf(cubes: number, drift: ResourceChange[], extra: Partial<Plan> = {}): Plan {
  const noops: ResourceChange[] = Array.from({ length: cubes }, (_, i) => ({
    address: `cube/c-${i}`,
    kind: "cube",
    cubeName: `c-${i}`,
    id: `id-${i}`,
    action: "noop",
    changes: [],
  }));
  return {
    formatVersion: 1,
    createdAt: new Date(0).toISOString(),
    spaceId: "space-1",
    changes: [...noops, ...drift],
    steps: [],
    summary: { add: 0, change: drift.length, destroy: 0, blocked: 0 },
    options: {},
    cost: costOf(cubes * 4.5, cubes * 4.5 + 9, 50000),
    ...extra,
  } as unknown as Plan;
}

/** Feeds one round's start and end to the recorder, as the loop does. */
export function feedRound(
  recorder: WatchStatusRecorder,
  round: number,
  end: Partial<RoundEnd> & { durationMs?: number },
  at = Date.now(),
): void {
  const startedAt = at - (end.durationMs ?? 800);
  const observer = recorder.observer;
  recorder.roundStarted(round);
  observer.roundStarted?.({ round, trigger: end.trigger ?? "interval", startedAt });
  observer.roundEnded?.({
    round,
    trigger: "interval",
    startedAt,
    finishedAt: at,
    outcome: "succeeded",
    revision: undefined,
    drift: [],
    repaired: [],
    plan: undefined,
    applying: true,
    mutations: 0,
    converged: true,
    ...end,
  });
  recorder.roundEnded(end.outcome === "failed" || end.outcome === "source-failed" ? end.outcome : "succeeded", end.error?.message);
}

export type { LiveSources };
