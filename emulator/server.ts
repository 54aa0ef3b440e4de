/** startEmulator: the core behind a node:http server on 127.0.0.1. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { assembleEmulator } from "./assemble.js";
import type { ApiRequest, ApiResponse } from "./core/http.js";
import type { Handle } from "./handler.js";
import { isStoragePath, type StorageHandler } from "./storage.js";
import type { EmulatorOptions, RunningEmulator } from "./types.js";

const BODY_LIMIT = 1024 * 1024;

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const { core, admin, handle, storage } = assembleEmulator(options);
  const server = createServer(httpListener(handle, storage));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/api/v1`,
    origin,
    port,
    apiKey: core.apiKey,
    spaceId: core.spaceId,
    admin,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        core.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The node:http request listener that serves a handler (also used by bench/emulator-process.ts). */
export function httpListener(handle: Handle, storage?: StorageHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (storage && isStoragePath(new URL(req.url ?? "/", "http://127.0.0.1").pathname)) void storage(req, res);
    else void serve(handle, req, res);
  };
}

async function serve(handle: Handle, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  if (body === undefined) return refuseTooLarge(req, res);
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const request: ApiRequest = {
    method: (req.method ?? "GET").toUpperCase(),
    path: url.pathname,
    query: url.searchParams,
    headers: Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value]),
    ),
    body,
    clientIp: req.socket.remoteAddress ?? "unknown",
    origin: listeningOrigin(req),
  };
  const response = await handle(request);
  if (response.abort) req.socket.destroy();
  else send(res, response);
}

/** 413 for a body over the limit, the rest read and dropped (destroying the socket would reset it before the client reads the answer). */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
  send(res, {
    status: 413,
    headers: { connection: "close" },
    body: { error: `Request body larger than ${BODY_LIMIT} bytes: send at most ${BODY_LIMIT} bytes` },
  });
  req.resume();
}

/** The address this request's socket reached the server at: http://127.0.0.1:PORT, whatever its Host header says. */
function listeningOrigin(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? "127.0.0.1";
  const host = address.includes(":") ? `[${address}]` : address;
  return `http://${host}:${req.socket.localPort ?? 80}`;
}

function send(res: ServerResponse, response: ApiResponse): void {
  const text = response.text ?? (response.body === undefined ? "" : JSON.stringify(response.body));
  res.writeHead(response.status, {
    ...(text && response.text === undefined ? { "content-type": "application/json; charset=utf-8" } : {}),
    "content-length": Buffer.byteLength(text),
    ...response.headers,
  });
  res.end(text);
}

/** The body as text, or undefined when it is larger than BODY_LIMIT (by its Content-Length or as it arrives). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  if (Number(req.headers["content-length"] ?? 0) > BODY_LIMIT) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) return void chunks.push(chunk);
      req.off("data", onData);
      resolve(undefined);
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(undefined));
  });
}
