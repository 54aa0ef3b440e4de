/**
 * A request that cannot reach the API names the API's origin and the cause (refused, host not
 * found, timed out, TLS: untrusted, expired), for reads and
 * mutations alike, and what cannot succeed by resending is not resent.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createHttpsServer } from "node:https";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { createClient, type CubeApiError } from "../../client/index.js";
import { deviceLogin } from "../../client/device-login.js";
import { describeNetworkCause } from "../../client/network-failure.js";
import { downloadArchive } from "../../client/download.js";
import { uploadParts } from "../../client/upload.js";
import { startedImport } from "./support/server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)));

async function listen(server: Server | ReturnType<typeof createHttpsServer>): Promise<number> {
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** An HTTPS server with the named certificate; counts TCP connections (each one a handshake). */
async function httpsServer(cert: string): Promise<{ origin: string; connections: () => number }> {
  let connections = 0;
  const server = createHttpsServer({ cert: fixture(`${cert}.crt`), key: fixture(`${cert}.key`) }, (_req, res) => res.end("{}"));
  server.on("connection", () => connections++);
  server.on("tlsClientError", () => {});
  const port = await listen(server);
  return { origin: `https://localhost:${port}`, connections: () => connections };
}

/** A client with fast, real retries (3 resends allowed): what is not resent shows in `retries`. */
function client(origin: string, extra: { timeoutMs?: number } = {}) {
  const c = createClient({
    baseUrl: `${origin}/api/v1`,
    apiKey: "kro_network_test",
    spaceId: "s1",
    retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
  closers.push(() => c.close());
  return c;
}

async function failure(promise: Promise<unknown>): Promise<CubeApiError & { origin?: string; reason?: string }> {
  try {
    await promise;
  } catch (e) {
    return e as CubeApiError;
  }
  throw new Error("expected a failure");
}

/** One read and one mutation (with an Idempotency-Key: resendable): both fail the same way. */
const calls = {
  read: (c: ReturnType<typeof client>) => c.getCube("c1"),
  mutation: (c: ReturnType<typeof client>) =>
    c.createCube(
      { name: "web", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: "ssh-ed25519 AAAA test" },
      { idempotencyKey: "network-test-1" },
    ),
};

describe.each(Object.entries(calls))("%s", (_path, call) => {
  test("TLS, a self-signed certificate nobody trusts: named, with what to do, and not resent", async () => {
    const server = await httpsServer("tls-localhost");
    const error = await failure(call(client(server.origin)));
    expect(error).toMatchObject({ code: "network_error", reason: "DEPTH_ZERO_SELF_SIGNED_CERT", origin: server.origin, retries: 0 });
    expect(error.message).toContain(`at ${server.origin} failed: TLS: the server's certificate is not trusted`);
    expect(error.message).toContain("NODE_EXTRA_CA_CERTS");
    expect(server.connections()).toBe(1);
  });

  test("TLS, an expired certificate: named, and not resent", async () => {
    const server = await httpsServer("tls-expired");
    const error = await failure(call(client(server.origin)));
    expect(error).toMatchObject({ code: "network_error", reason: "CERT_HAS_EXPIRED", origin: server.origin, retries: 0 });
    expect(error.message).toContain(`at ${server.origin} failed: TLS: the server's certificate has expired (CERT_HAS_EXPIRED)`);
    expect(server.connections()).toBe(1);
  });

  test("plain HTTP on an https URL: the handshake fails, named, not resent", async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.once("data", () => socket.end("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n"));
      socket.on("error", () => {});
    });
    const origin = `https://localhost:${await listen(server)}`;
    const error = await failure(call(client(origin)));
    expect(error).toMatchObject({ code: "network_error", origin, retries: 0 });
    expect(error.message).toMatch(/the TLS handshake failed \(\w+\): does the server speak HTTPS on that port\?/);
    expect(connections).toBe(1);
  });

  test("connection refused: the origin and ECONNREFUSED, after the policy's resends", async () => {
    const closed = createServer();
    const port = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const origin = `http://127.0.0.1:${port}`;
    const error = await failure(call(client(origin)));
    expect(error).toMatchObject({ code: "network_error", reason: "ECONNREFUSED", origin, retries: 3 });
    expect(error.message).toBe(
      `Cube API ${error.method} ${error.path} at ${origin} failed: connection refused (ECONNREFUSED): nothing accepts connections there; is the server up and the URL's port right?`,
    );
  });

  test("a host name that does not resolve: named, resent once at most", async () => {
    const origin = "https://cubeform-test.invalid";
    const error = await failure(call(client(origin)));
    expect(error).toMatchObject({ code: "network_error", origin });
    // .invalid never resolves; a resolver without a network answers EAI_AGAIN instead.
    if (error.reason === "ENOTFOUND") {
      expect(error.message).toContain(`at ${origin} failed: the host name cubeform-test.invalid was not found (ENOTFOUND)`);
      expect(error.retries).toBe(1);
    } else expect(error.reason).toBe("EAI_AGAIN");
  });

  test("no answer in time: a timeout naming the origin", async () => {
    const silent = createServer((socket) => socket.on("error", () => {}));
    const origin = `http://127.0.0.1:${await listen(silent)}`;
    const c = createClient({
      baseUrl: `${origin}/api/v1`,
      apiKey: "kro_network_test",
      spaceId: "s1",
      retry: { maxRetries: 0 },
      timeoutMs: 150,
    });
    closers.push(() => c.close());
    const error = await failure(call(c));
    expect(error).toMatchObject({ code: "timeout", origin });
    expect(error.message).toContain(`at ${origin} timed out: no answer within 150 ms`);
  });
});

test("the API key never appears in a network error, however it is printed", async () => {
  const server = await httpsServer("tls-expired");
  const error = await failure(client(server.origin).getCube("c1"));
  expect(`${String(error)} ${JSON.stringify(error)} ${error.stack ?? ""}`).not.toContain("kro_network_test");
});

test("what each TLS verification failure says, and that none is resent", () => {
  const host = "api.example.com";
  expect(
    describeNetworkCause(
      "ERR_TLS_CERT_ALTNAME_INVALID",
      "Hostname/IP does not match certificate's altnames: Host: api.example.com. is not in the cert's altnames: DNS:other.example",
      host,
    ),
  ).toEqual({
    code: "ERR_TLS_CERT_ALTNAME_INVALID",
    text: "TLS: the server's certificate is not valid for the name api.example.com: it is for DNS:other.example (ERR_TLS_CERT_ALTNAME_INVALID); use a URL with a name the certificate holds",
    retryLimit: 0,
  });
  for (const code of [
    "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    "SELF_SIGNED_CERT_IN_CHAIN",
    "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
    "CERT_NOT_YET_VALID",
    "EPROTO",
  ]) {
    expect(describeNetworkCause(code, undefined, host)).toMatchObject({ code, retryLimit: 0 });
  }
  for (const code of ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "HPE_INVALID_CONSTANT"]) {
    expect(describeNetworkCause(code, undefined, host).retryLimit).toBeUndefined();
  }
  expect(describeNetworkCause("ENOTFOUND", undefined, host).retryLimit).toBe(1);
});

test("the device login (cubeform login) names the origin and the cause too", async () => {
  const closed = createServer();
  const port = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const origin = `http://127.0.0.1:${port}`;
  const error = await failure(deviceLogin(`${origin}/api/v1`, { onCode: () => {} }));
  expect(error).toMatchObject({ code: "network_error", reason: "ECONNREFUSED", origin });
  expect(error.message).toContain(`Cube API POST /auth/cli/start at ${origin} failed: connection refused (ECONNREFUSED)`);
});

describe("transfers to the storage (presigned URLs)", () => {
  const tempFile = (name: string, bytes = 0): string => {
    const dir = mkdtempSync(join(tmpdir(), "cubeform-transfer-net-"));
    const path = join(dir, name);
    if (bytes > 0) writeFileSync(path, Buffer.alloc(bytes, 1));
    return path;
  };
  const expiresAt = new Date(Date.now() + 60_000).toISOString();

  test("a backup download from a storage with an untrusted certificate names the storage's origin and the cause, and is not resent", async () => {
    const server = await httpsServer("tls-localhost");
    const link = async () => ({ url: `${server.origin}/__storage/backups/b1?sig=x`, filename: "b1.cube", sizeBytes: 10, expiresAt });
    const error = await failure(downloadArchive(link, tempFile("b1.cube")));
    expect(error.code).toBe("transfer_failed");
    expect(error.message).toContain(`GET to the storage at ${server.origin} failed: TLS: the server's certificate is not trusted`);
    expect(server.connections()).toBe(1);
  });

  test("a part upload to a storage that refuses connections names the storage's origin and the cause", async () => {
    const port = await listen(createServer());
    await closers.pop()!(); // nothing listens there any more
    const origin = `http://127.0.0.1:${port}`;
    const file = tempFile("archive.cube", 16);
    const started = startedImport(1, 16, (n) => `${origin}/__storage/imports/i1/parts/${n}`);
    const error = await failure(uploadParts(file, 16, started, { sleep: async () => {} }));
    expect(error.code).toBe("transfer_failed");
    expect(error.message).toContain(`PUT of part 1 to the storage at ${origin} failed: connection refused (ECONNREFUSED)`);
  });

  test("a part upload to a storage with an untrusted certificate is tried once, not three times", async () => {
    const server = await httpsServer("tls-localhost");
    const file = tempFile("archive.cube", 16);
    const started = startedImport(1, 16, (n) => `${server.origin}/__storage/imports/i1/parts/${n}`);
    const error = await failure(uploadParts(file, 16, started, { sleep: async () => {} }));
    expect(error.message).toContain(
      `PUT of part 1 to the storage at ${server.origin} failed: TLS: the server's certificate is not trusted`,
    );
    expect(server.connections()).toBe(1);
  });
});
