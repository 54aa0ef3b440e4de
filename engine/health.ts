/** A rollout's health checks: one probe of one member (http, tcp, or running), with the member's placeholders in the url. */
import type { Cube } from "../schema/api.js";
import type { HealthCheckSpec } from "./types.js";

/** The member a probe is about. */
export interface ProbeTarget {
  name: string;
  index: number;
  cube: Cube;
  /** Its first domain's hostname. */
  hostname?: string;
}

export interface ProbeResult {
  ok: boolean;
  /** What the check saw, for a person: "HTTP 503 from http://…", "connection refused on 10.0.0.4:8080". */
  saw: string;
}

export type HealthProbe = (check: HealthCheckSpec, target: ProbeTarget) => Promise<ProbeResult>;

/** How long one probe may take. */
const PROBE_TIMEOUT_MS = 5_000;

/** {name} {i} {id} {hostname} {publicIpv4} → the member's values (empty when it has none). */
export function expandPlaceholders(text: string, target: ProbeTarget): string {
  const values: Record<string, string> = {
    name: target.name,
    i: String(target.index),
    id: target.cube.id,
    hostname: target.hostname ?? "",
    publicIpv4: target.cube.publicIpv4 ?? "",
  };
  return text.replace(/\{(name|i|id|hostname|publicIpv4)\}/g, (_, key: string) => values[key] ?? "");
}

/** One probe: a running cube passes `running`; http wants the expected status; tcp wants a connection. Never throws. */
export const probeMember: HealthProbe = async (check, target) => {
  if (target.cube.state !== "running") return { ok: false, saw: `the cube is ${target.cube.state}` };
  if (check.kind === "running") return { ok: true, saw: "the cube is running" };
  if (check.kind === "http") return probeHttp(expandPlaceholders(check.url, target), check.expectStatus);
  const host = target.cube.publicIpv4;
  if (host === null) return { ok: false, saw: "the cube has no public IPv4 address to connect to" };
  return probeTcp(host, check.port);
};

/** Node's own http(s) and net, loaded on the first probe: a plan never needs them (nor node:tls). Probes go to the user's services, not the API. */
async function probeHttp(url: string, expectStatus: number): Promise<ProbeResult> {
  if (!URL.canParse(url)) return { ok: false, saw: `${url} is not a URL` };
  const target = new URL(url);
  const { request } = target.protocol === "https:" ? await import("node:https") : await import("node:http");
  return new Promise((resolve) => {
    const req = request(target, { method: "GET", timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      const ok = status === expectStatus;
      resolve({ ok, saw: `HTTP ${status} from ${url}${ok ? "" : ` (expected ${expectStatus})`}` });
    });
    req.once("timeout", () => req.destroy(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)));
    req.once("error", (e) => resolve({ ok: false, saw: `no answer from ${url}: ${e.message}` }));
    req.end();
  });
}

async function probeTcp(host: string, port: number): Promise<ProbeResult> {
  const { connect } = await import("node:net");
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: PROBE_TIMEOUT_MS });
    const done = (result: ProbeResult): void => {
      socket.destroy();
      resolve(result);
    };
    socket.once("connect", () => done({ ok: true, saw: `a connection to ${host}:${port}` }));
    socket.once("timeout", () => done({ ok: false, saw: `no connection to ${host}:${port} within ${PROBE_TIMEOUT_MS / 1000} s` }));
    socket.once("error", (e) => done({ ok: false, saw: `no connection to ${host}:${port}: ${e.message}` }));
  });
}
