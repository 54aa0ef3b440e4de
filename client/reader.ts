/**
 * GET requests on kept-alive HTTP/1.1 connections, and nothing else. A plan is 1 + 2N GETs;
 * through undici (or node:http) the client spent ~3× the server's CPU per read, most of it in
 * the HTTP machinery. Here a request is one socket write and a response one header scan plus
 * its body text. Mutations still go through undici (transport.ts).
 *
 * One request per connection at a time (no pipelining), at most `connections` connections;
 * an idle connection is closed after `keepAliveMs` (or before the server's own keep-alive
 * timeout, when it names one) and never keeps the process alive. A failure is returned as it
 * is: resending is the retry layer's job (and counted there).
 */
import { createRequire } from "node:module";
import { connect as netConnect, type Socket } from "node:net";
import type * as Tls from "node:tls";

/** node:tls, loaded for the first https connection only (a plan against http need not load it). */
let tls: typeof Tls | undefined;
const loadTls = (): typeof Tls => (tls ??= createRequire(import.meta.url)("node:tls") as typeof Tls);

export interface RawResponse {
  status: number;
  /** A header's value (the first of a repeated one); `name` in lower case. */
  header(name: string): string | undefined;
  text: string;
}

/** A failure before a whole answer arrived; `code` is the socket's (ECONNREFUSED…) or READ_TIMEOUT. */
export class ReadFailure extends Error {
  constructor(
    readonly code: string,
    /** The socket's own message, when it says more than the code (e.g. a certificate's names). */
    readonly detail?: string,
  ) {
    super(`read failed: ${code}`);
  }
}

interface Pending {
  head: string;
  timeoutMs: number;
  resolve(res: RawResponse): void;
  reject(err: ReadFailure): void;
}

const CRLFCRLF = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");

export class ReadPool {
  private readonly idle: Connection[] = [];
  private readonly queue: Pending[] = [];
  private open = 0;
  private closed = false;

  constructor(
    private readonly base: URL,
    private readonly connections: number,
    private readonly keepAliveMs = 10_000,
  ) {}

  /** `target` is the request target (path and query), `headers` the header lines, each ending in CRLF. */
  get(target: string, headers: string, timeoutMs: number): Promise<RawResponse> {
    if (!/^\/[\x21-\x7e]*$/.test(target)) return Promise.reject(new ReadFailure("INVALID_TARGET"));
    const head = `GET ${target} HTTP/1.1\r\nhost: ${this.base.host}\r\n${headers}\r\n`;
    return new Promise((resolve, reject) => {
      this.dispatch({ head, timeoutMs, resolve, reject });
    });
  }

  close(): void {
    this.closed = true;
    for (const conn of this.idle.splice(0)) conn.destroy();
    for (const pending of this.queue.splice(0)) pending.reject(new ReadFailure("CLIENT_CLOSED"));
  }

  private dispatch(pending: Pending): void {
    if (this.closed) return pending.reject(new ReadFailure("CLIENT_CLOSED"));
    const conn = this.idle.pop();
    if (conn) return conn.send(pending);
    if (this.open < this.connections) {
      this.open++;
      return new Connection(this.base, this, this.keepAliveMs).send(pending);
    }
    this.queue.push(pending);
  }

  /** Called by a connection that finished a request and can take another. */
  released(conn: Connection): void {
    const next = this.queue.shift();
    if (next) conn.send(next);
    else if (this.closed) conn.destroy();
    else this.idle.push(conn);
  }

  /** Called once by a connection that is gone, with the request it could not answer. */
  gone(conn: Connection, unanswered: Pending | undefined, failure: ReadFailure): void {
    this.open--;
    const at = this.idle.indexOf(conn);
    if (at >= 0) this.idle.splice(at, 1);
    unanswered?.reject(failure);
    // A queued request may now open a connection of its own.
    const next = this.queue.shift();
    if (next) this.dispatch(next);
  }
}

class Connection {
  private readonly socket: Socket;
  private pending: Pending | undefined;
  private buffer: Buffer | undefined;
  private timer: NodeJS.Timeout | undefined;
  private dead = false;

  constructor(
    base: URL,
    private readonly pool: ReadPool,
    private readonly keepAliveMs: number,
  ) {
    const port = Number(base.port || (base.protocol === "https:" ? 443 : 80));
    const host = base.hostname.replace(/^\[|\]$/g, "");
    this.socket = base.protocol === "https:" ? loadTls().connect({ host, port, servername: host, ALPNProtocols: ["http/1.1"] }) : netConnect({ host, port });
    this.socket.setNoDelay(true);
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    this.socket.on("error", (err: NodeJS.ErrnoException) => this.fail(new ReadFailure(err.code ?? "SOCKET_ERROR", err.message)));
    this.socket.on("close", () => this.fail(new ReadFailure("ECONNRESET")));
  }

  send(pending: Pending): void {
    this.pending = pending;
    this.buffer = undefined;
    this.socket.ref();
    this.setTimer(pending.timeoutMs, () => this.fail(new ReadFailure("READ_TIMEOUT")));
    this.socket.write(pending.head, "latin1");
  }

  destroy(): void {
    this.dead = true;
    clearTimeout(this.timer);
    this.socket.destroy();
  }

  private setTimer(ms: number, then: () => void): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(then, ms);
    this.timer.unref();
  }

  private onData(chunk: Buffer): void {
    if (!this.pending) return this.fail(new ReadFailure("UNEXPECTED_DATA"));
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
    let parsed: Parsed | undefined;
    try {
      parsed = parseResponse(this.buffer);
    } catch {
      return this.fail(new ReadFailure("HPE_INVALID_RESPONSE"));
    }
    if (parsed === undefined) return;
    const pending = this.pending;
    this.pending = undefined;
    this.buffer = undefined;
    clearTimeout(this.timer);
    pending.resolve(parsed.response);
    // Anything past the answer would be a protocol error: such a connection is not reused.
    if (parsed.keepAlive && parsed.consumed === parsed.total) this.idleAfter(parsed.response.header("keep-alive"));
    else this.finish();
  }

  /** Idle until reused or until shortly before the server would close it. */
  private idleAfter(keepAliveHeader: string | undefined): void {
    const serverSeconds = Number(/timeout=(\d+)/i.exec(keepAliveHeader ?? "")?.[1] ?? NaN);
    const idleMs = Number.isFinite(serverSeconds) ? Math.min(this.keepAliveMs, Math.max(0, serverSeconds * 1000 - 1000)) : this.keepAliveMs;
    this.socket.unref();
    this.setTimer(idleMs, () => this.finish());
    this.pool.released(this);
  }

  /** Closes a connection that answered everything asked of it. */
  private finish(): void {
    if (this.dead) return;
    this.destroy();
    this.pool.gone(this, undefined, new ReadFailure("ECONNRESET"));
  }

  private fail(failure: ReadFailure): void {
    if (this.dead) return;
    this.destroy();
    const pending = this.pending;
    this.pending = undefined;
    this.pool.gone(this, pending, failure);
  }
}

interface Parsed {
  response: RawResponse;
  keepAlive: boolean;
  /** Bytes the answer took; `total`, what was buffered. */
  consumed: number;
  total: number;
}

/** A header line without a name and a colon. */
const BAD_HEADER_LINE = /\r\n(?::|[^:\r\n]*(?:\r\n|$))/;

/**
 * The headers of an answer's head (status line included), looked up by name when asked: a
 * plan reads 20,000 answers and needs four of their headers, not a map of each one's.
 */
function headerLookup(head: string): (name: string) => string | undefined {
  const lower = head.toLowerCase();
  return (name) => {
    const at = lower.indexOf(`\r\n${name}:`);
    if (at < 0) return undefined;
    const from = at + name.length + 3;
    const end = head.indexOf("\r\n", from);
    return head.slice(from, end < 0 ? head.length : end).trim();
  };
}

/** One whole answer from the start of `buf`, or undefined while more is needed. Throws on garbage. */
function parseResponse(buf: Buffer): Parsed | undefined {
  let start = 0;
  for (;;) {
    const headEnd = buf.indexOf(CRLFCRLF, start);
    if (headEnd < 0) return undefined;
    const head = buf.toString("latin1", start, headEnd);
    const statusLine = /^HTTP\/1\.([01]) (\d{3})[^\r\n]*/.exec(head);
    if (!statusLine) throw new Error("bad status line");
    if (BAD_HEADER_LINE.test(head)) throw new Error("bad header line");
    const status = Number(statusLine[2]);
    const header = headerLookup(head);
    const bodyStart = headEnd + 4;
    // 1xx answers come before the real one.
    if (status >= 100 && status < 200) {
      start = bodyStart;
      continue;
    }
    const connection = (header("connection") ?? "").toLowerCase();
    const keepAlive = statusLine[1] === "1" ? !connection.includes("close") : connection.includes("keep-alive");
    const done = (text: string, consumed: number): Parsed => ({ response: { status, header, text }, keepAlive, consumed, total: buf.length });
    if (status === 204 || status === 304) return done("", bodyStart);
    if ((header("transfer-encoding") ?? "").toLowerCase().includes("chunked")) return parseChunked(buf, bodyStart, done);
    const lengthText = header("content-length");
    if (lengthText === undefined) throw new Error("no length: only kept-alive answers with a length are read");
    if (!/^\d+$/.test(lengthText)) throw new Error("bad content-length");
    const end = bodyStart + Number(lengthText);
    if (buf.length < end) return undefined;
    return done(buf.toString("utf8", bodyStart, end), end);
  }
}

function parseChunked(buf: Buffer, from: number, done: (text: string, consumed: number) => Parsed): Parsed | undefined {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, at);
    if (lineEnd < 0) return undefined;
    const sizeText = buf.toString("latin1", at, lineEnd).split(";")[0]?.trim() ?? "";
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) throw new Error("bad chunk size");
    const size = parseInt(sizeText, 16);
    if (size === 0) {
      // Optional trailer lines, then an empty line.
      const trailerEnd = buf.indexOf(CRLF, lineEnd + 2) === lineEnd + 2 ? lineEnd + 4 : buf.indexOf(CRLFCRLF, lineEnd + 2) + 4;
      if (trailerEnd < 4 || trailerEnd > buf.length) return undefined;
      return done(Buffer.concat(parts).toString("utf8"), trailerEnd);
    }
    const dataStart = lineEnd + 2;
    if (buf.length < dataStart + size + 2) return undefined;
    parts.push(buf.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}
