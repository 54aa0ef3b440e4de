/** Pieces of plans, and the page's server, for the status page's tests and bench (no test runner here: the bench imports it). */
import type { Plan, ResourceChange } from "../../engine/index.js";
import { Registry } from "../../reconciler/metrics/registry.js";
import { serveMetrics, type MetricsServer } from "../../reconciler/metrics/server.js";
import type { WatchStatusRecorder } from "../../reconciler/metrics/status.js";
import type { StatusAuth } from "../../reconciler/metrics/status-auth.js";
import { pageHeaders, renderPage } from "../../reconciler/status-page/page.js";

/** A change to cube `cubeName` (id `id-NAME` unless given), each field going from 1 to 2. */
export function change(
  cubeName: string,
  action: ResourceChange["action"] = "update",
  fields: string[] = ["resources.vcpu"],
  id = `id-${cubeName}`,
): ResourceChange {
  return {
    address: `cube/${cubeName}`,
    kind: "cube",
    cubeName,
    id: action === "create" ? null : id,
    action,
    changes: fields.map((path) => ({ path, before: 1, after: 2, forcesReplace: false })),
  };
}

/** A plan's cost in euros a month, before and after, under a budget it keeps to. */
export function costOf(before: number, after: number, monthlyBudget: number): Plan["cost"] {
  const priced = { currency: "EUR", hoursPerMonth: 730, stoppedBills: "disk", note: "", tiers: [] };
  return {
    ...priced,
    before,
    after,
    delta: after - before,
    cubes: [],
    budget: { monthly: monthlyBudget, over: false },
  } as unknown as Plan["cost"];
}

/** The status server as watch serves it (serveMetrics with the page) on 127.0.0.1, around a recorder; `redact` as watch's. */
export function servePageOf(
  recorder: WatchStatusRecorder,
  auth?: StatusAuth,
  redact: (text: string) => string = (t) => t,
): Promise<MetricsServer> {
  const snapshot = () => recorder.snapshot({ ready: true, live: true }, redact);
  return serveMetrics({
    host: "127.0.0.1",
    port: 0,
    registry: new Registry(),
    health: () => ({ ok: true, reason: "" }),
    status: snapshot,
    page: () => ({ html: renderPage(snapshot()), headers: pageHeaders() }),
    ...(auth ? { auth } : {}),
  });
}
