/** Tiny loopback HTTP servers for client tests: a handler per test, every request recorded. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ImportStarted } from "../../../schema/index.js";

export interface Received {
  method: string;
  /** Path relative to /api/v1, without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: unknown;
  /** Client side port of the connection (to see connection reuse). */
  remotePort: number | undefined;
  /** performance.now() when the request was fully received. */
  at: number;
}

export type Reply = { status?: number; body?: unknown; raw?: string; headers?: Record<string, string> } | "reset";
export type Handler = (req: Received, index: number) => Reply | Promise<Reply>;

export interface TestServer {
  url: string;
  origin: string;
  received: Received[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function answer(res: ServerResponse, reply: Reply): void {
  if (reply === "reset") {
    res.socket?.destroy();
    return;
  }
  const text = reply.raw ?? (reply.body === undefined ? "" : JSON.stringify(reply.body));
  res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
  res.end(text);
}

export async function startTestServer(handler: Handler): Promise<TestServer> {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const text = await readBody(req);
    const url = new URL(req.url ?? "/", "http://x");
    const entry: Received = {
      method: req.method ?? "GET",
      path: url.pathname.replace(/^\/api\/v1/, ""),
      query: url.searchParams,
      headers: req.headers,
      body: text === "" ? undefined : (JSON.parse(text) as unknown),
      remotePort: req.socket.remotePort,
      at: performance.now(),
    };
    const index = received.push(entry) - 1;
    try {
      answer(res, await handler(entry, index));
    } catch (err) {
      res.writeHead(599).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/api/v1`,
    origin,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A sleep that records the requested waits and returns at once. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

export function sampleCube(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name: `cube-${id}`,
    state: "running",
    publicIpv4: null,
    image: "ubuntu-24.04",
    sshUser: "ubuntu",
    resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
    terminationProtection: false,
    terminationProtectionChangedAt: null,
    terminationProtectionChangedBy: null,
    ...overrides,
  };
}

export const CREATE_BODY = {
  name: "web-1",
  image: "ubuntu-24.04",
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
  sshPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample user@host",
};

/** A domain as the API answers it (its own field names: `domain`, not `hostname`). */
export function sampleApiDomain(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: "d1", cubeId: "c1", domain: "app.example.com", port: 80, status: "active", isWildcard: false, ...overrides };
}

/** A TCP mapping as the API answers it (its own field names: `udpEnabled`, `whitelistedIps`). */
export function sampleApiTcpMapping(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const placed = { id: "m1", cubeId: "c1", cubePort: 80, hostPort: 30001, host: "h", label: null, status: "active" };
  return { ...placed, isSsh: false, udpEnabled: true, whitelistedIps: [], ...overrides };
}

/** A manual snapshot as the API answers it, just taken. */
export function sampleSnapshot(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "sn1",
    cubeId: "c1",
    name: "s",
    sizeBytes: null,
    status: "pending",
    kind: "manual",
    createdAt: "2026-01-01T00:00:00Z",
    ...overrides,
  };
}

/** An import as the API starts it: `partCount` parts of `chunkSizeBytes`, part n sent to `partUrl(n)`. */
export function startedImport(partCount: number, chunkSizeBytes: number, partUrl: (partNumber: number) => string): ImportStarted {
  const parts = Array.from({ length: partCount }, (_, i) => ({ partNumber: i + 1, url: partUrl(i + 1) }));
  return { importId: "imp_1", uploadId: "u", key: "k", chunkSizeBytes, expiresAt: new Date(Date.now() + 3_600_000).toISOString(), parts };
}
