/**
 * A forward proxy on 127.0.0.1, as Squid or a corporate proxy behaves: plain http requests in
 * absolute form are forwarded, CONNECT opens a tunnel; every request and tunnel is recorded.
 * `refuseConnect` answers CONNECT with 403, as a proxy whose policy forbids the target does;
 * `delayMs` holds each forwarded request that long, so that requests overlap as on a real network.
 * `echoHeaders` answers every plain http request itself with a 400 whose error echoes the request's
 * headers (as JSON and as header lines), as a debugging proxy or a hostile API would.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { listenUntilTestEnds } from "./listen.js";

export interface ForwardProxy {
  url: string;
  /** "GET http://127.0.0.1:1234/api/v1/…" for forwarded requests, "CONNECT localhost:1234" for tunnels. */
  seen: string[];
  /** Proxy-Authorization headers received (to check what a client sends). */
  authorizations: string[];
  /** The most forwarded requests that were in flight at once. */
  maxInFlight(): number;
}

export async function startForwardProxy(
  options: { refuseConnect?: boolean; delayMs?: number; echoHeaders?: boolean } = {},
): Promise<ForwardProxy> {
  const seen: string[] = [];
  const authorizations: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.headers["proxy-authorization"]) authorizations.push(String(req.headers["proxy-authorization"]));
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    res.on("close", () => inFlight--);
    if (options.echoHeaders) return void echo(req, res);
    if (options.delayMs) setTimeout(() => forward(req, res), options.delayMs);
    else forward(req, res);
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    if (options.refuseConnect) return void client.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
    const [host, port] = splitHostPort(req.url ?? "");
    const upstream = connect({ host, port }, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  return { url: await listenUntilTestEnds(server), seen, authorizations, maxInFlight: () => maxInFlight };
}

function forward(req: IncomingMessage, res: ServerResponse): void {
  let target: URL;
  try {
    target = new URL(req.url ?? "");
  } catch {
    res.writeHead(400).end("not a proxy request");
    return;
  }
  const headers = { ...req.headers };
  delete headers["proxy-authorization"];
  delete headers["proxy-connection"];
  const upstream = request(target, { method: req.method, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", () => res.headersSent || res.writeHead(502).end("upstream unreachable"));
  req.pipe(upstream);
}

function echo(req: IncomingMessage, res: ServerResponse): void {
  const lines = Object.entries(req.headers).map(([name, value]) => `${name}: ${String(value)}`);
  res.writeHead(400, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: `bad request; headers: ${JSON.stringify(req.headers)}\n${lines.join("\n")}` }));
}

function splitHostPort(authority: string): [string, number] {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
  return match ? [match[1] ?? "", Number(match[2])] : [authority, 443];
}
