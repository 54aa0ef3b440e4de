/**
 * `cubeform dns CUBE [DOMAIN]`: the DNS records a cube's domains need, their live state and proxy advice; --wait until all are found.
 * `missing` (not published yet) and `unknown` (could not check) are states to show, never errors.
 */
import type { CubeApi, Domain } from "../../client/api.js";
import type { Cube } from "../../schema/api.js";
import type { RateLimit } from "../session/connect.js";
import { readCubeDns, type CubeDns, type DnsReadPace } from "../report/dns-reads.js";
import { CliError } from "../errors.js";
import { writeLine, type CliIo } from "../io.js";
import { formatDuration, sleep } from "../../system/time.js";
import { escapeText as t } from "../render/escape.js";
import { isComplete, renderDns, stateText, type DnsFormat } from "../render/dns.js";
import { withConnection } from "../session/session.js";
import { findCube, type WaitFlags } from "../session/day2.js";

export interface DnsContext extends WaitFlags {
  cube: string;
  domain?: string;
  format: DnsFormat;
  emulator: boolean;
  rateLimit: RateLimit;
  /** How the record views are read (default DEFAULT_DNS_PACE). */
  dnsPace?: DnsReadPace;
  cwd: string;
}

export async function runDns(ctx: DnsContext, io: CliIo): Promise<number> {
  return withConnection({ ...ctx, files: [], format: "text" }, io, async (conn) => {
    const cube = await findCube(conn.client, ctx.cube);
    const domains = await domainsOf(conn.client, cube, ctx.domain);
    let report = await readCubeDns(conn.client, cube, domains, ctx.dnsPace);
    if (ctx.wait) report = await waitUntilComplete(conn.client, cube, domains, report, ctx, io);
    io.stdout.write(renderDns(report, ctx.format));
    if (ctx.wait && !isComplete(report)) throw new CliError("dns_incomplete", incompleteMessage(report, ctx));
    return 0;
  });
}

async function domainsOf(client: CubeApi, cube: Cube, hostname: string | undefined): Promise<Domain[]> {
  const domains = await client.listDomains(cube.id);
  if (hostname === undefined) return domains;
  const domain = domains.find((d) => d.hostname === hostname.toLowerCase());
  if (domain === undefined) {
    const attached = domains.map((d) => d.hostname).join(", ") || "none";
    throw new CliError("domain_not_found", `cube "${cube.name}" has no domain ${hostname} (attached: ${attached})`);
  }
  return [domain];
}

async function waitUntilComplete(
  client: CubeApi,
  cube: Cube,
  domains: Domain[],
  first: CubeDns,
  ctx: DnsContext,
  io: CliIo,
): Promise<CubeDns> {
  const deadline = Date.now() + ctx.timeoutMs;
  let report = first;
  let lastProgress = "";
  while (!isComplete(report) && Date.now() < deadline && !io.signal?.aborted) {
    const progress = progressLine(report);
    if (progress !== lastProgress) writeLine(io.stderr, t(`waiting for DNS: ${progress}`));
    lastProgress = progress;
    await sleep(Math.min(ctx.intervalMs, Math.max(0, deadline - Date.now())), io.signal);
    report = await readCubeDns(client, cube, domains, ctx.dnsPace);
  }
  return report;
}

function progressLine(report: CubeDns): string {
  const records = report.domains.flatMap((d) => d.records);
  const found = records.filter((r) => r.state === "found").length;
  return `${found} of ${records.length} records found`;
}

function incompleteMessage(report: CubeDns, ctx: DnsContext): string {
  const pending = report.domains
    .filter((d) => !d.complete)
    .flatMap((d) =>
      d.error !== undefined
        ? [`${d.hostname} (${d.error})`]
        : d.records.filter((r) => r.state !== "found").map((r) => `${r.type} ${r.host} → ${r.value} (${stateText(r)})`),
    );
  return `DNS of cube "${report.cube.name}" is not complete after ${formatDuration(ctx.timeoutMs)}; still needed: ${pending.join("; ")}`;
}
