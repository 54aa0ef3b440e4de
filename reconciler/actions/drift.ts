/** `cubeform drift`: read-only. What differs between the space and the file, plus the DNS records of declared domains. Exit 0 in sync, 2 drift. */
import { cubeAddress, domainAddress, type DesiredState, type ObservedState } from "../../engine/index.js";
import type { Connection } from "../session/connect.js";
import { DEFAULT_DNS_PACE, readPaced, readRecordView, type DnsReadPace } from "../report/dns-reads.js";
import type { CliIo } from "../io.js";
import { renderDriftMarkdown, writeDrift, type DomainDnsCheck, type DriftReport } from "../render/index.js";
import { hasChanges } from "../render/values.js";
import { renderContext } from "../render/context.js";
import { appendStepSummary } from "../render/step-summary.js";
import { EXIT_CHANGES, EXIT_IN_SYNC } from "../report/exit-codes.js";
import { computePlan, loadForSession, withConnection, type SessionContext } from "../session/session.js";
import { notifyDrift, notifySource, type NotifySettings } from "../notify/index.js";
import type { PolicyFlags } from "../session/policy.js";

export interface DriftContext extends SessionContext {
  targets: string[];
  /** --policy (else CUBEFORM_POLICY): the rules the live fleet and its drift are judged by; violations are reported, drift's exit code is drift's. */
  policy?: PolicyFlags;
  /** How the DNS record views are read (default DEFAULT_DNS_PACE). */
  dnsPace?: DnsReadPace;
  /** --notify: a drift.detected event when the space differs. */
  notify?: NotifySettings;
}

export async function runDrift(ctx: DriftContext, io: CliIo): Promise<number> {
  const loaded = await loadForSession(ctx, io);
  const report = await withConnection({ ...ctx, fileSpaceId: loaded.desired.spaceId }, io, async (conn): Promise<DriftReport> => {
    const { plan, observed } = await computePlan(
      conn,
      loaded.desired,
      { targets: ctx.targets, prune: false, allowReplace: false, ...(ctx.policy ? { policy: ctx.policy } : {}) },
      ctx.rateLimit,
      io.stderr,
      loaded,
    );
    return { formatVersion: 1, plan, dns: await checkDns(conn, loaded.desired, observed, ctx.dnsPace ?? DEFAULT_DNS_PACE) };
  });
  const render = renderContext(loaded, io);
  await writeDrift(io.stdout, report, ctx.format, render);
  if (ctx.format === "github") await appendStepSummary(io, renderDriftMarkdown(report, render));
  if (ctx.notify !== undefined) await notifyDrift(ctx.notify, notifySource(ctx), report.plan, io);
  return isDrifted(report) ? EXIT_CHANGES : EXIT_IN_SYNC;
}

/** `missing` (not published yet) and `unknown` (could not check) are not drift; a wrong record is. */
export function isDrifted(report: DriftReport): boolean {
  return hasChanges(report.plan) || report.dns.some((d) => d.records.some((r) => r.state === "mismatch"));
}

/** The records of every declared domain that is attached, read at the given pace. */
async function checkDns(conn: Connection, desired: DesiredState, observed: ObservedState, pace: DnsReadPace): Promise<DomainDnsCheck[]> {
  const byId = new Map(observed.cubes.map((o) => [o.cube.id, o]));
  const byName = new Map<string, ObservedState["cubes"][number]>();
  for (const o of observed.cubes) if (!byName.has(o.cube.name)) byName.set(o.cube.name, o);
  const reads: { base: Omit<DomainDnsCheck, "records" | "complete">; cubeId: string; domainId: string }[] = [];
  for (const spec of desired.cubes) {
    const live = spec.id !== undefined ? byId.get(spec.id) : byName.get(spec.name);
    if (live === undefined) continue;
    for (const domainSpec of spec.domains ?? []) {
      const domain = live.domains.find((d) => d.hostname === domainSpec.hostname);
      if (domain === undefined) continue;
      reads.push({
        base: { address: domainAddress(cubeAddress(spec.name), domain.hostname), cubeName: spec.name, hostname: domain.hostname },
        cubeId: live.cube.id,
        domainId: domain.id,
      });
    }
  }
  return readPaced(reads, pace, async ({ base, cubeId, domainId }) => ({
    ...base,
    ...(await readRecordView(conn.client, cubeId, domainId)),
  }));
}
