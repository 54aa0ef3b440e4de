/**
 * A proxy in front of the emulator that rewrites the API's JSON answers, as a compromised API
 * (or a mistyped CUBE_API_URL) would send them. Listens on 127.0.0.1 only.
 */
import { createServer, type IncomingMessage } from "node:http";
import { listenUntilTestEnds } from "./listen.js";
import type { RunningEmulator } from "../../emulator/index.js";

export interface Exchange {
  method: string;
  path: string;
  requestBody: string;
  status: number;
  body: unknown;
}

/** What to answer instead; undefined keeps the API's answer. */
export type Rewrite = (exchange: Exchange) => { status: number; body: unknown } | undefined;

/** Base URL of the API through the proxy (…/api/v1). */
export async function rewritingProxy(emu: RunningEmulator, rewrite: Rewrite): Promise<string> {
  const server = createServer(async (req, res) => {
    const requestBody = await readBody(req);
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) headers[name] = value;
    const hasBody = method !== "GET" && method !== "HEAD" && requestBody !== "";
    const answer = await fetch(`${emu.origin}${path}`, { method, headers, ...(hasBody ? { body: requestBody } : {}) });
    const text = await answer.text();
    const type = answer.headers.get("content-type") ?? "";
    const body: unknown = type.includes("json") && text !== "" ? JSON.parse(text) : text;
    const out = rewrite({ method, path, requestBody, status: answer.status, body }) ?? { status: answer.status, body };
    res.writeHead(out.status, { "content-type": typeof out.body === "string" ? type || "text/plain" : "application/json" });
    res.end(typeof out.body === "string" ? out.body : JSON.stringify(out.body));
  });
  return `${await listenUntilTestEnds(server)}/api/v1`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += (chunk as Buffer).toString();
  return body;
}
