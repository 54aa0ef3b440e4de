/**
 * `cubeform drift`: read-only. What differs between the space and the file, plus the DNS
 * records of declared domains. Exit 0 in sync, 2 drift.
 */
import { cubeAddress, domainAddress, type DesiredState, type ObservedState } from "../../engine/index.js";
import type { Connection } from "../connect.js";
import type { CliIo } from "../io.js";
import { renderDriftMarkdown, writeDrift, type DomainDnsCheck, type DriftReport } from "../render/index.js";
import { hasChanges } from "../render/values.js";
import { appendStepSummary, EXIT_CHANGES, EXIT_IN_SYNC, renderContext } from "./plan.js";
import { computePlan, loadForSession, withConnection, type SessionContext } from "./session.js";

export interface DriftContext extends SessionContext {
  targets: string[];
}

export async function runDrift(ctx: DriftContext, io: CliIo): Promise<number> {
  const loaded = await loadForSession(ctx, io);
  const report = await withConnection(ctx, io, async (conn): Promise<DriftReport> => {
    const { plan, observed } = await computePlan(conn, loaded.desired, { targets: ctx.targets, prune: false, allowReplace: false }, ctx.rateLimit);
    return { formatVersion: 1, plan, dns: await checkDns(conn, loaded.desired, observed) };
  });
  const render = renderContext(loaded, io);
  writeDrift(io.stdout, report, ctx.format, render);
  if (ctx.format === "github") await appendStepSummary(io, renderDriftMarkdown(report, render));
  return isDrifted(report) ? EXIT_CHANGES : EXIT_IN_SYNC;
}

/** `missing` (not published yet) and `unknown` (could not check) are not drift; a wrong record is. */
export function isDrifted(report: DriftReport): boolean {
  return hasChanges(report.plan) || report.dns.some((d) => d.records.some((r) => r.state === "mismatch"));
}

/** The records of every declared domain that is attached, read one domain after another. */
async function checkDns(conn: Connection, desired: DesiredState, observed: ObservedState): Promise<DomainDnsCheck[]> {
  const checks: DomainDnsCheck[] = [];
  for (const spec of desired.cubes) {
    const live = observed.cubes.find((o) => (spec.id !== undefined ? o.cube.id === spec.id : o.cube.name === spec.name));
    if (live === undefined) continue;
    for (const domainSpec of spec.domains ?? []) {
      const domain = live.domains.find((d) => d.domain === domainSpec.hostname);
      if (domain === undefined) continue;
      const base = { address: domainAddress(cubeAddress(spec.name), domain.domain), cubeName: spec.name, hostname: domain.domain };
      try {
        const view = await conn.client.getDomainRecords(live.cube.id, domain.id);
        checks.push({ ...base, records: view.records, complete: view.summary.complete });
      } catch (e) {
        checks.push({ ...base, records: [], complete: false, error: (e as Error).message });
      }
    }
  }
  return checks;
}
