/**
 * `git http-backend` behind a small HTTP server on 127.0.0.1 with basic auth: the https
 * credentials path without a network. Each request is checked against `user:token`, and while
 * git's processes are running, their argv (/proc/PID/cmdline) is recorded for the test.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, dirname } from "node:path";
import { onTestFinished } from "vitest";

export interface GitHttpServer {
  /** http://127.0.0.1:PORT/<bare repository's name> */
  url: string;
  /** The Authorization headers received, in order. */
  authorizations: (string | undefined)[];
  /** The argv of every process running while a request was served. */
  commandLines: string[];
}

export async function serveGitHttp(bare: string, user: string, token: string, env: Record<string, string>): Promise<GitHttpServer> {
  const expected = `Basic ${Buffer.from(`${user}:${token}`).toString("base64")}`;
  const state: GitHttpServer = { url: "", authorizations: [], commandLines: [] };
  const server = createServer((req, res) => {
    state.authorizations.push(req.headers.authorization);
    state.commandLines.push(...commandLines());
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="git"' }).end();
      return;
    }
    runBackend(req, res, dirname(bare), env);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${basename(bare)}`;
  return state;
}

function runBackend(req: IncomingMessage, res: ServerResponse, projectRoot: string, env: Record<string, string>): void {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const cgi = spawn("git", ["http-backend"], {
    env: {
      ...env,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      REQUEST_METHOD: req.method ?? "GET",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_USER: "test",
      REMOTE_ADDR: "127.0.0.1",
      ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) } : {}),
      ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
    },
    stdio: ["pipe", "pipe", "ignore"],
  });
  req.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let headersSent = false;
  cgi.stdout.on("data", (chunk: Buffer) => {
    if (headersSent) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) return;
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
      const at = line.indexOf(":");
      const name = line.slice(0, at).trim();
      const value = line.slice(at + 1).trim();
      if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    headersSent = true;
    res.write(head.subarray(end + 4));
  });
  cgi.on("close", () => res.end());
}

function commandLines(): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" "));
    } catch {
      // the process ended
    }
  }
  return lines;
}
