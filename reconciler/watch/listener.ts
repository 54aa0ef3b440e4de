/**
 * `watch --listen ADDR`: a signed delivery about a cube, domain or TCP mapping starts a round at once. One seen before, by its id (a retry) or by
 * what its signature covers (a replay), is acknowledged and dropped; so is a forge push seen before, by its delivery id or its body. The
 * signature is checked against secrets in memory before anything else.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tryOr } from "../../system/files.js";
import { CliError } from "../errors.js";
import { listenOn } from "../metrics/server.js";
import { AcceptedPushes, AcceptedSignatures } from "./replays.js";
import { checkPush, forgeOf, type Forge } from "./push.js";
import { verifySignature } from "./signature.js";

/** Events that can mean the space no longer matches the file. */
const RELEVANT = /^(cube|domain|tcp_mapping)\./;
const MAX_BODY_BYTES = 1024 * 1024;
/** Delivery ids remembered to drop duplicates (retries of a delivery that did arrive). */
const REMEMBERED_DELIVERIES = 10_000;

export interface ListenerOptions {
  host: string;
  port: number;
  /** The current signing secrets, already loaded: checking a delivery reads no file. */
  secrets(): readonly string[];
  /** A verified, relevant event arrived. */
  onEvent(event: string, deliveryId: string): void;
  /** One line about a refused delivery (never the secret or the body). */
  onRefused(reason: string): void;
  now?: () => number;
  /** `--repo`: forge push events (push.ts), told apart from the service's deliveries by their headers. */
  push?: PushOptions;
}

export interface PushOptions {
  /** The shared secret (--push-secret-file, re-read per delivery); undefined when none is set. */
  secret(): Promise<string | undefined>;
  /** The watched ref; undefined: the remote's default branch. */
  ref?: string;
  onPush(forge: Forge, ref: string): void;
}

export interface Listener {
  url: string;
  close(): Promise<void>;
}

export function parseListenAddress(text: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535)
    throw new CliError(
      "invalid_option",
      `invalid option --listen: expected PORT or HOST:PORT such as 127.0.0.1:4666 (got ${JSON.stringify(text)})`,
    );
  const host = (match[1] ?? "127.0.0.1").replace(/^\[(.*)\]$/, "$1") || "127.0.0.1";
  return { host, port };
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const accepted = new AcceptedSignatures();
  const pushes = new AcceptedPushes();
  const seen = new Set<string>();
  const remember = (id: string): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    if (seen.size > REMEMBERED_DELIVERIES) seen.delete(seen.values().next().value as string);
    return true;
  };
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: object): void => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    void (async () => {
      if (req.method !== "POST") return answer(405, { error: "method_not_allowed" });
      const body = await readBody(req);
      if (body === undefined) return answer(413, { error: "payload_too_large" });
      const forge = options.push === undefined ? undefined : forgeOf(req.headers);
      if (forge !== undefined && options.push !== undefined) {
        const fresh = (deliveryId: string): boolean => pushes.accept(deliveryId, body, options.now?.() ?? Date.now());
        return answerPush(forge, options.push, req.headers, body, fresh, answer, options.onRefused);
      }
      const now = Math.floor((options.now?.() ?? Date.now()) / 1000);
      const verdict = verifySignature(req.headers["x-krova-signature"] as string | undefined, body, options.secrets(), now);
      if (!verdict.ok) {
        options.onRefused(`refused a delivery: ${verdict.error}`);
        return answer(401, { error: verdict.error });
      }
      const deliveryId = String(req.headers["x-krova-delivery"] ?? "");
      const fresh = accepted.accept(verdict.timestamp, body, now) && (deliveryId === "" || remember(deliveryId));
      if (!fresh) return answer(200, { received: true, duplicate: true });
      const event = String(req.headers["x-krova-event"] ?? eventOf(body));
      if (RELEVANT.test(event)) options.onEvent(event, deliveryId);
      answer(200, { received: true });
    })().catch(() => answer(400, { error: "bad_request" }));
  });
  await listenOn(server, options, (e) => {
    const why = e.code === "EADDRINUSE" ? "the port is in use (by another process; choose another with --listen [HOST:]PORT)" : e.message;
    return new CliError("listen_failed", `cannot listen for webhook deliveries on ${options.host}:${options.port}: ${why}`);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The header a forge names a delivery by (a retry keeps it). */
const DELIVERY_HEADERS: Record<Forge, string> = { github: "x-github-delivery", gitea: "x-gitea-delivery", gitlab: "x-gitlab-event-uuid" };

async function answerPush(
  forge: Forge,
  push: PushOptions,
  headers: IncomingHttpHeaders,
  body: Buffer,
  fresh: (deliveryId: string) => boolean,
  answer: (status: number, body: object) => void,
  onRefused: (reason: string) => void,
): Promise<void> {
  const verdict = checkPush(forge, headers, body, await push.secret(), push.ref);
  if (verdict.kind === "refused") {
    onRefused(`refused a delivery: ${verdict.reason}`);
    return answer(401, { error: "invalid_signature" });
  }
  const deliveryId = String(headers[DELIVERY_HEADERS[forge]] ?? "");
  if (verdict.kind === "sync" && !fresh(deliveryId)) {
    // The id header is not signed: named only when it looks like one.
    const named = /^[\w-]{1,100}$/.test(deliveryId) ? ` (delivery ${deliveryId})` : "";
    onRefused(`dropped a ${forge} push seen before${named}: a retry or a replay starts no round`);
    return answer(200, { received: true, duplicate: true });
  }
  if (verdict.kind === "sync") push.onPush(verdict.forge, verdict.ref);
  answer(200, { received: true, ...(verdict.kind === "ignored" ? { ignored: verdict.reason } : {}) });
}

function eventOf(body: Buffer): string {
  const event = tryOr(() => (JSON.parse(body.toString("utf8")) as { event?: unknown } | null)?.event, undefined);
  return typeof event === "string" ? event : "";
}
