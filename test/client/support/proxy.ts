/** A recording reverse proxy: forwards to a target origin and keeps every request's method, path and JSON body. */
import { createServer, request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  method: string;
  /** Path relative to /api/v1, without the query. */
  path: string;
  body: unknown;
  status?: number;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startRecordingProxy(targetOrigin: string): Promise<{ url: string; recorded: Recorded[]; close(): Promise<void> }> {
  const target = new URL(targetOrigin);
  const recorded: Recorded[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const entry: Recorded = {
      method: req.method ?? "GET",
      path: new URL(req.url ?? "/", "http://x").pathname.replace(/^\/api\/v1/, ""),
      body: body.length === 0 ? undefined : (JSON.parse(body.toString("utf8")) as unknown),
    };
    recorded.push(entry);
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (up) => {
        entry.status = up.statusCode;
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    recorded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
