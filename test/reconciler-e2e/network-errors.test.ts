/**
 * What the bin says when the API cannot be reached: one line naming the API's origin and the
 * cause; a TLS certificate for another name is refused at once (never resent), a refused
 * connection after the client's retries (and says so).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished, test, expect } from "vitest";
import { describeRun, FLEET, startBin, tempDir } from "./support.js";

const fixture = (name: string) => fileURLToPath(new URL(`../client/fixtures/${name}`, import.meta.url));

function projectDir(): string {
  const cwd = tempDir();
  writeFileSync(join(cwd, "cubeform.yaml"), FLEET);
  return cwd;
}

test("a certificate for another name: the origin, the names it holds, exit 1 at once, one connection", async () => {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createHttpsServer(
    { cert: readFileSync(fixture("tls-wrong-name.crt")), key: readFileSync(fixture("tls-wrong-name.key")) },
    (_req, res) => res.end("{}"),
  );
  server.on("connection", (socket: Socket) => {
    connections++;
    sockets.add(socket);
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  // The certificate is trusted as a root, so the only thing wrong with it is its name.
  const env = {
    CUBE_API_URL: `${origin}/api/v1`,
    CUBE_API_KEY: "kro_wrong_name_secret",
    NODE_EXTRA_CA_CERTS: fixture("tls-wrong-name.crt"),
    XDG_CONFIG_HOME: tempDir(),
  };
  const run = await startBin(["plan", "-f", "cubeform.yaml"], { cwd: projectDir(), env }).exited;
  expect(run.code, describeRun(run)).toBe(1);
  expect(run.stderr.trim()).toBe(
    `Error: Cube API GET /space at ${origin} failed: TLS: the server's certificate is not valid for the name localhost: it is for DNS:wrong.example (ERR_TLS_CERT_ALTNAME_INVALID); use a URL with a name the certificate holds`,
  );
  expect(run.stdout + run.stderr).not.toContain("kro_wrong_name_secret");
  expect(connections).toBe(1);
});

test("nothing listening: the origin and ECONNREFUSED, and how many times it was tried", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const origin = `http://127.0.0.1:${port}`;
  const env = { CUBE_API_URL: `${origin}/api/v1`, CUBE_API_KEY: "kro_refused_secret", XDG_CONFIG_HOME: tempDir() };
  const run = await startBin(["plan", "-f", "cubeform.yaml"], { cwd: projectDir(), env }).exited;
  expect(run.code, describeRun(run)).toBe(1);
  expect(run.stderr.trim()).toBe(
    `Error: Cube API GET /space at ${origin} failed: connection refused (ECONNREFUSED): nothing accepts connections there; is the server up and the URL's port right? (gave up after 4 retries)`,
  );
});
