/**
 * The watch loop's HTTP endpoints: /livez, /readyz (= /healthz) for probes, /metrics for Prometheus, /status (JSON, status.ts) for scripts and
 * / (the status page, status-page/) for people. Read-only: any method but GET and HEAD is refused with 405. With an auth file, / and /status
 * ask for its credentials; the probes and /metrics stay open.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CliError } from "../errors.js";
import type { StatusAuth } from "./status-auth.js";
import { PROMETHEUS_CONTENT_TYPE, type Registry } from "./registry.js";

export interface Health {
  ok: boolean;
  /** Shown in the 503 body. */
  reason: string;
  /** Lines after "ok" (or after the reason), e.g. the revision a git source is at. */
  detail?: string;
}

export interface MetricsServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Readiness: /readyz and /healthz. */
  health(): Health;
  /** Liveness: /livez (always ok when absent). */
  live?(): Health;
  /** The body of /status (404 when absent). */
  status?(): object;
  /** GET /: the status page, with its headers (Content-Security-Policy…); 404 when absent. */
  page?(): { html: string; headers: Record<string, string> };
  /** Credentials that / and /status ask for. */
  auth?: StatusAuth;
}

const TEXT = "text/plain; charset=utf-8";

/** On every answer: nothing here is to be sniffed into another type, framed, or leak the page's address. */
const SAFE_HEADERS = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };

export interface MetricsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function serveMetrics(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD")
      return send(res, 405, TEXT, "method not allowed: this port is read-only (GET, HEAD)\n", {
        allow: "GET, HEAD",
      });
    const guarded = (path === "/" && options.page !== undefined) || (path === "/status" && options.status !== undefined);
    if (guarded && options.auth !== undefined && !options.auth.allows(req.headers.authorization)) {
      return send(res, 401, TEXT, "credentials required (the watch's --status-auth-file)\n", {
        "www-authenticate": options.auth.challenge,
      });
    }
    if (path === "/" && options.page) {
      const page = options.page();
      return send(res, 200, "text/html; charset=utf-8", page.html, page.headers);
    }
    if (path === "/metrics") return send(res, 200, PROMETHEUS_CONTENT_TYPE, options.registry.render());
    if (path === "/healthz" || path === "/readyz") return probe(res, options.health());
    if (path === "/livez") return probe(res, options.live?.() ?? { ok: true, reason: "" });
    if (path === "/status" && options.status)
      return send(res, 200, "application/json; charset=utf-8", `${JSON.stringify(options.status(), null, 2)}\n`);
    send(
      res,
      404,
      TEXT,
      `not found: try ${options.page ? "/ (the status page), " : ""}/metrics, /livez, /readyz${options.status ? ", /status" : ""} or /healthz\n`,
    );
  });
  const why = (e: NodeJS.ErrnoException): string => (e.code === "EADDRINUSE" ? "the port is in use" : e.message);
  await listenOn(
    server,
    options,
    (e) => new CliError("metrics_listen", `cannot serve metrics on ${options.host}:${options.port}: ${why(e)}`),
  );
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function probe(res: import("node:http").ServerResponse, health: Health): void {
  send(res, health.ok ? 200 : 503, TEXT, `${health.ok ? "ok" : health.reason}\n${health.detail ? `${health.detail}\n` : ""}`);
}

function send(
  res: import("node:http").ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...SAFE_HEADERS, ...headers, "content-type": contentType, "cache-control": "no-store" });
  res.end(body);
}

/** Listens on host:port; a failure (a port in use) rejects with what `refusal` makes of it. */
export function listenOn(server: Server, at: { host: string; port: number }, refusal: (e: NodeJS.ErrnoException) => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => reject(refusal(e)));
    server.listen(at.port, at.host, () => resolve());
  });
}
