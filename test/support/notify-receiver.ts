/**
 * A webhook receiver on 127.0.0.1 as a team's endpoint would be: it records each POST (headers, raw body) and answers what the test says
 * (200 by default; a 500, a 429 with Retry-After, or nothing at all while "down").
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import { listenUntilTestEnds } from "./listen.js";
import { verifySignature } from "../../reconciler/watch/signature.js";

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, unknown>;
  at: number;
}

export interface Receiver {
  url: string;
  /** Every POST received, failed answers included. */
  all: Received[];
  /** The POSTs answered 2xx. */
  accepted(): Received[];
  /** Decides each answer (default: 200). */
  answer: (request: Received, index: number) => { status: number; headers?: Record<string, string> };
  /** Whether a request's X-Cubeform-Signature verifies with the secret (the scheme of watch/signature.ts). */
  verifies(request: Received, secret: string): boolean;
}

export async function startReceiver(): Promise<Receiver> {
  const accepted: Received[] = [];
  const receiver: Receiver = {
    url: "",
    all: [],
    accepted: () => accepted,
    answer: () => ({ status: 200 }),
    verifies: (request, secret) => {
      const header = request.headers["x-cubeform-signature"];
      return verifySignature(typeof header === "string" ? header : undefined, request.raw, [secret], Math.floor(Date.now() / 1000)).ok;
    },
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
    } catch {
      body = { unparsable: raw.toString("utf8") };
    }
    const request = { headers: req.headers, raw, body, at: Date.now() };
    const index = receiver.all.push(request) - 1;
    const { status, headers } = receiver.answer(request, index);
    if (status >= 200 && status < 300) accepted.push(request);
    res.writeHead(status, { "content-type": "text/plain", ...headers });
    res.end(status < 300 ? "ok" : "no");
  });
  receiver.url = `${await listenUntilTestEnds(server)}/hooks/cubeform`;
  return receiver;
}
