/**
 * Issue 31 item 17: answers a plain JSON reader trips on, from raw loopback servers (node:net). A gzip-encoded body and a body
 * shorter than its Content-Length each say which host answered and what was wrong (not "response body is not JSON"); 1xx
 * preambles (102 Processing, 103 Early Hints) before the final answer are read past; a "100 Continue" nobody asked for, which
 * undici refuses, is named.
 */
import { createServer, type AddressInfo, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, test } from "vitest";
import { createClient, type CubeApiError } from "../../client/index.js";
import { sampleCube } from "./support/server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const SPACE = JSON.stringify({ id: "s1", name: "x", tier: "free", createdAt: "2026-01-01" });
const head = (status: string, headers: Record<string, string | number>) =>
  `HTTP/1.1 ${status}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`;
const json = (body: string, status = "200 OK") =>
  head(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }) + body;

/**
 * Answers every request (head and Content-Length body read) with `parts`, written one after another (a separate TCP write
 * each); `close`: the connection is ended after them. Counts the requests.
 */
async function rawServer(parts: (string | Buffer)[], options: { close?: boolean } = {}) {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    let buffered = Buffer.alloc(0);
    socket.on("data", async (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(buffered.subarray(0, end).toString())?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.subarray(end + 4 + length);
        requests++;
        for (const part of parts) await new Promise<void>((resolve) => socket.write(part, () => resolve()));
        if (options.close) socket.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { host, requests: () => requests };
}

function client(host: string) {
  const c = createClient({
    baseUrl: `http://${host}/api/v1`,
    apiKey: "kro_unusual_test",
    spaceId: "s1",
    retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 },
  });
  closers.push(() => c.close());
  return c;
}

async function failure(promise: Promise<unknown>): Promise<CubeApiError> {
  try {
    await promise;
  } catch (e) {
    return e as CubeApiError;
  }
  throw new Error("expected a failure");
}

describe("answers that are not plain JSON say which host answered and why", () => {
  test("a gzip-encoded answer: refused naming the host and the encoding, not resent", async () => {
    const body = gzipSync(SPACE);
    const server = await rawServer([
      Buffer.concat([
        Buffer.from(head("200 OK", { "content-type": "application/json", "content-encoding": "gzip", "content-length": body.length })),
        body,
      ]),
    ]);
    const err = await failure(client(server.host).getSpace());
    expect(err).toMatchObject({ code: "invalid_response", status: 200 });
    expect(err.message).toBe(
      `Cube API GET /space: the answer from ${server.host} was gzip-encoded, which cubeform does not ask for (it sends no Accept-Encoding); is a proxy compressing it?`,
    );
    expect(server.requests()).toBe(1);
  });

  test("a body shorter than its Content-Length: the connection closed after N of M bytes; a read is resent", async () => {
    const server = await rawServer([head("200 OK", { "content-type": "application/json", "content-length": SPACE.length + 50 }) + SPACE], {
      close: true,
    });
    const err = await failure(client(server.host).getSpace());
    expect(err).toMatchObject({ code: "network_error", reason: "cut_short", retries: 2 });
    expect(err.message).toBe(
      `Cube API GET /space: the answer from ${server.host} (HTTP 200) was cut short: the connection closed after ${SPACE.length} of ${SPACE.length + 50} bytes`,
    );
    expect(server.requests()).toBe(3);
  });

  test("the same cut mid-body, the rest never sent", async () => {
    const server = await rawServer(
      [head("200 OK", { "content-type": "application/json", "content-length": SPACE.length }), SPACE.slice(0, 10)],
      { close: true },
    );
    const err = await failure(client(server.host).getSpace());
    expect(err.message).toContain(
      `the answer from ${server.host} (HTTP 200) was cut short: the connection closed after 10 of ${SPACE.length} bytes`,
    );
  });

  test("a body that is not JSON: the host, the status, its size and Content-Type", async () => {
    const page = "<html>sign in</html>";
    const server = await rawServer([head("200 OK", { "content-type": "text/html", "content-length": page.length }) + page]);
    const err = await failure(client(server.host).getSpace());
    expect(err.message).toBe(
      `Cube API GET /space: the answer from ${server.host} (HTTP 200, ${page.length} bytes, Content-Type text/html) is not JSON`,
    );
  });
});

describe("1xx preambles before the final answer", () => {
  const hints = head("103 Early Hints", { link: "</style.css>; rel=preload; as=style" });
  const processing = head("102 Processing", {});

  test.each([
    ["103 in the same write as the answer", [hints + json(SPACE)]],
    ["103, then the answer in another write", [hints, json(SPACE)]],
    ["102 then 103 then the answer", [processing, hints, json(SPACE)]],
  ])("a read: %s", async (_name, parts) => {
    const server = await rawServer(parts);
    const api = client(server.host);
    expect(await api.getSpace()).toMatchObject({ id: "s1" });
    expect(await api.getSpace()).toMatchObject({ id: "s1" });
    expect(server.requests()).toBe(2);
  });

  test("a create answered 103 then 201: done once", async () => {
    const server = await rawServer([hints, json(JSON.stringify({ cube: sampleCube("c1") }), "201 Created")]);
    const cube = await client(server.host).createCube(
      { name: "a", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: "ssh-ed25519 AAAA" },
      { idempotencyKey: "k1" },
    );
    expect(cube.id).toBe("c1");
    expect(server.requests()).toBe(1);
  });

  test("a 100 Continue nobody asked for is named (the HTTP client refuses to read past it)", async () => {
    const server = await rawServer([head("100 Continue", {}), json(SPACE)]);
    const err = await failure(client(server.host).getSpace());
    expect(err.code).toBe("network_error");
    expect(err.message).toContain(
      `at http://${server.host} failed: the server's answer began with a "100 Continue" that was not asked for`,
    );
  });
});
