/**
 * The client's HTTP (undici, client/transport.ts) against servers that answer in the ways real
 * ones do: chunked bodies (with trailers), answers split into many packets, "Connection: close",
 * close-delimited bodies, and HTTPS; and in ways that must fail: a garbled answer, bytes after a
 * complete answer, two Content-Length headers.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createServer as createHttpsServer } from "node:https";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { afterEach, expect, test } from "vitest";
import { createClient } from "../../client/index.js";
import { sampleCube } from "./support/server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A TCP server that answers every request on a connection with `respond(n)` (n counts requests). */
async function wireServer(respond: (n: number, socket: Socket) => void): Promise<{ url: string; connections: () => number }> {
  let requests = 0;
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.setNoDelay(true);
    let pending = "";
    socket.on("data", (data) => {
      pending += data.toString("latin1");
      while (pending.includes("\r\n\r\n")) {
        pending = pending.slice(pending.indexOf("\r\n\r\n") + 4);
        respond(requests++, socket);
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, connections: () => connections };
}

function client(url: string) {
  const c = createClient({ baseUrl: url, apiKey: "kro_wire_test", spaceId: "s1", retry: { maxRetries: 0 } });
  closers.push(() => c.close());
  return c;
}

const cubeBody = (id: string) => JSON.stringify({ cube: sampleCube(id) });

test("chunked answers, with and without trailers, split into packets of 3 bytes", async () => {
  const { url, connections } = await wireServer((n, socket) => {
    const body = cubeBody(`c${n}`);
    const half = Math.floor(body.length / 2);
    const trailer = n % 2 === 0 ? "" : "x-checksum: 1\r\n";
    const wire = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${half.toString(16)}\r\n${body.slice(0, half)}\r\n${(body.length - half).toString(16)};ext=1\r\n${body.slice(half)}\r\n0\r\n${trailer}\r\n`;
    if (n === 1) for (let i = 0; i < wire.length; i += 3) socket.write(wire.slice(i, i + 3), "latin1");
    else socket.write(wire, "latin1");
  });
  const c = client(url);
  for (let i = 0; i < 6; i++) expect((await c.getCube(`c${i}`)).id).toBe(`c${i}`);
  // Kept alive: undici may open a second connection while the first one's trailers are read.
  expect(connections()).toBeLessThanOrEqual(2);
});

test("`Connection: close` answers are read, and the next request opens a new connection", async () => {
  const { url, connections } = await wireServer((n, socket) => {
    const body = cubeBody(`c${n}`);
    socket.end(`HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  const c = client(url);
  expect((await c.getCube("c0")).id).toBe("c0");
  expect((await c.getCube("c1")).id).toBe("c1");
  expect(connections()).toBe(2);
});

test("a body delimited by the connection's close (no length, not chunked) is read whole", async () => {
  const { url } = await wireServer((n, socket) => {
    const body = cubeBody(`c${n}`);
    socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n${body.slice(0, 20)}`);
    socket.end(body.slice(20));
  });
  expect((await client(url).getCube("c0")).id).toBe("c0");
});

test("bytes after a complete answer are never taken as the next request's answer", async () => {
  const { url } = await wireServer((n, socket) => {
    const body = cubeBody(`c${n}`);
    const stray = cubeBody("stray");
    socket.write(
      `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(stray)}\r\n\r\n${stray}`,
    );
  });
  const c = client(url);
  expect((await c.getCube("c0")).id).toBe("c0");
  // The second request gets its own answer (on a new connection) or fails: never "stray".
  const second = await c.getCube("c1").then(
    (cube) => cube.id,
    (error: { code?: string }) => error.code,
  );
  expect(second).not.toBe("stray");
});

test("two different Content-Length headers are a network error, not the first one's body", async () => {
  const { url } = await wireServer((n, socket) => {
    const body = cubeBody(`c${n}`);
    socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 10\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  await expect(client(url).getCube("c0")).rejects.toMatchObject({ code: "network_error" });
});

test("a garbled answer is a network error, not a hang", async () => {
  const { url } = await wireServer((_n, socket) => socket.write("SMTP ready\r\n\r\n"));
  await expect(client(url).getCube("c1")).rejects.toMatchObject({ code: "network_error" });
});

test("header names in any case are read; a header line without a name is a network error", async () => {
  const body = cubeBody("c0");
  const answers = [
    `HTTP/1.1 200 OK\r\nDate: x\r\nCONTENT-Length:  ${Buffer.byteLength(body)} \r\nx-content-length: 1\r\n\r\n${body}`,
    `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\nno colon here\r\n\r\n${body}`,
    `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\n: no name\r\n\r\n${body}`,
  ];
  const { url } = await wireServer((n, socket) => socket.write(answers[n] ?? "", "latin1"));
  const c = client(url);
  expect((await c.getCube("c0")).id).toBe("c0");
  await expect(c.getCube("c1")).rejects.toMatchObject({ code: "network_error" });
  await expect(c.getCube("c2")).rejects.toMatchObject({ code: "network_error" });
});

test("HTTPS: reads go over TLS to the server the URL names, trusting the system's (and NODE_EXTRA_CA_CERTS') roots", async () => {
  const cert = fileURLToPath(new URL("./fixtures/tls-localhost.crt", import.meta.url));
  const key = fileURLToPath(new URL("./fixtures/tls-localhost.key", import.meta.url));
  const server = createHttpsServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ cube: sampleCube(req.headers["x-api-key"] === "kro_tls_test" ? "tls-ok" : "no-key") }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const url = `https://localhost:${(server.address() as AddressInfo).port}/api/v1`;
  const script = `import { createClient } from ${JSON.stringify(new URL("../../client/index.ts", import.meta.url).href)};
const c = createClient({ baseUrl: process.argv[1], apiKey: "kro_tls_test", spaceId: "s1", retry: { maxRetries: 0 } });
try { console.log((await c.getCube("x")).id); } catch (e) { console.log(e.code); } finally { await c.close(); }`;
  // A child process (not spawnSync: this process serves the answers), since Node reads NODE_EXTRA_CA_CERTS at start.
  const run = async (env: Record<string, string>) =>
    (
      await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, url], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", ...env },
      })
    ).stdout.trim();
  const [trusted, untrusted] = await Promise.all([run({ NODE_EXTRA_CA_CERTS: cert }), run({})]);
  expect(trusted).toBe("tls-ok");
  // Without the root, the certificate is refused: nothing is read from an untrusted server.
  expect(untrusted).toBe("network_error");
});
