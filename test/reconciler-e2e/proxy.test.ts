/**
 * Behind a proxy (issue 19): every request of the bin — a plan's reads, an apply's mutations, a
 * backup download and an archive upload — goes through HTTP_PROXY / HTTPS_PROXY (either case),
 * plain http forwarded and https tunnelled with CONNECT; NO_PROXY bypasses it; a proxy that
 * refuses gives an error that names the proxy (never its password), not the API.
 * Issue 31 item 21: a loopback API goes direct whatever the proxy variables say (as Terraform);
 * the tests that watch a proxy on loopback opt in with CUBEFORM_PROXY_LOOPBACK=1.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer as createTlsServer } from "node:tls";
import { connect, type AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { onTestFinished, expect, test } from "vitest";
import { startForwardProxy } from "../support/forward-proxy.js";
import { proxyFor } from "../../client/dispatcher.js";
import { APPLY, FLEET, RATE, SSH_KEY, describeRun, project, type Project } from "./support.js";

/** Loopback targets go through the proxy only when asked: the proxy tests' emulator is on 127.0.0.1. */
const VIA = { CUBEFORM_PROXY_LOOPBACK: "1" };

const apiRequests = (p: Project) =>
  p.emu.admin.requests().map((r) => `${r.method} ${p.emu.url.replace(/\/api\/v1$/, "")}${r.path}${r.query ? `?${r.query}` : ""}`);

test("HTTP_PROXY: a plan's reads and an apply's mutations all go through the proxy, none past it", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const proxy = await startForwardProxy();
  const apply = await p.run(APPLY, { ...VIA, HTTP_PROXY: proxy.url });
  expect(apply.code, describeRun(apply)).toBe(0);
  expect(p.mutations()).toBeGreaterThan(0);
  // Every request the API saw came through the proxy, in absolute form.
  expect([...proxy.seen].sort()).toEqual(apiRequests(p).sort());

  p.emu.admin.clearRequests();
  proxy.seen.length = 0;
  const plan = await p.run(["plan", ...RATE], { ...VIA, http_proxy: proxy.url });
  expect(plan.code, describeRun(plan)).toBe(0);
  expect(proxy.seen.length).toBeGreaterThan(2);
  expect([...proxy.seen].sort()).toEqual(apiRequests(p).sort());
});

test("--parallelism N bounds the requests in flight; a bad value is one clear line", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  for (let i = 0; i < 12; i++) {
    await p.api.createCube(
      { name: `extra-${i}`, image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
      { idempotencyKey: `extra-${i}` },
    );
  }
  const narrow = await startForwardProxy({ delayMs: 20 });
  const plan = await p.run(["plan", "--parallelism", "2", ...RATE], { ...VIA, HTTP_PROXY: narrow.url });
  expect(plan.code, describeRun(plan)).toBe(2);
  expect(narrow.seen.length).toBeGreaterThan(20);
  expect(narrow.maxInFlight()).toBeLessThanOrEqual(2);
  const wide = await startForwardProxy({ delayMs: 20 });
  await p.run(["plan", ...RATE], { ...VIA, HTTP_PROXY: wide.url });
  expect(wide.maxInFlight()).toBeGreaterThan(2);
  const bad = await p.run(["plan", "--parallelism", "0", ...RATE]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/invalid option --parallelism/);
});

test("NO_PROXY names the API's host: nothing goes through the proxy", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const proxy = await startForwardProxy();
  const plan = await p.run(["plan", ...RATE], { ...VIA, HTTP_PROXY: proxy.url, NO_PROXY: "example.org,127.0.0.1" });
  expect(plan.code, describeRun(plan)).toBe(2);
  expect(proxy.seen).toEqual([]);
  expect(p.emu.admin.requests().length).toBeGreaterThan(0);
});

test("ALL_PROXY is used when no scheme-specific variable is set", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const proxy = await startForwardProxy();
  const plan = await p.run(["plan", ...RATE], { ...VIA, ALL_PROXY: proxy.url });
  expect(plan.code, describeRun(plan)).toBe(2);
  expect([...proxy.seen].sort()).toEqual(apiRequests(p).sort());
});

test("a backup download and an archive upload go through the proxy, storage URLs included", async () => {
  const p = await project();
  const proxy = await startForwardProxy();
  const cube = await p.api.createCube(
    { name: "db", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "create-db" },
  );
  const backup = p.emu.admin.createBackup({ cubeId: cube.id, name: "nightly", sizeBytes: 1024 * 1024 + 3 });
  p.emu.admin.clearRequests();
  const download = await p.run(["backup", "download", "nightly", "--out", "copy.cube", ...RATE], {
    ...VIA,
    HTTPS_PROXY: "http://127.0.0.1:1",
    HTTP_PROXY: proxy.url,
  });
  expect(download.code, describeRun(download)).toBe(0);
  expect(proxy.seen.filter((line) => line.includes(`/__storage/`))).not.toEqual([]);
  expect(proxy.seen.some((line) => line.includes(`/backups/${backup.id}/download`))).toBe(true);

  proxy.seen.length = 0;
  writeFileSync(join(p.cwd, "web.cube"), randomBytes(2 * 1024 * 1024 + 5));
  const upload = await p.run(
    ["upload", "web.cube", "--name", "restored", "--ssh-key", SSH_KEY, "--vcpu", "1", "--ram-gb", "1", "--disk-gb", "10", ...RATE],
    { ...VIA, HTTP_PROXY: proxy.url },
  );
  expect(upload.code, describeRun(upload)).toBe(0);
  expect(proxy.seen.filter((line) => line.startsWith("PUT ")).length).toBeGreaterThanOrEqual(2);
  expect(proxy.seen.some((line) => /^POST .*\/cubes\/imports\/imp_\w+\/complete$/.test(line))).toBe(true);
});

test("a proxy that accepts no connection: the error names the proxy and its variable, never its password; exit 1", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const plan = await p.run(["plan", ...RATE, "--format", "json"], { ...VIA, HTTP_PROXY: "http://ops:pr0xy-s3cret@127.0.0.1:1" });
  expect(plan.code).toBe(1);
  expect(plan.stderr).toMatch(/the proxy http:\/\/127\.0\.0\.1:1 \(from HTTP_PROXY\) failed: connection refused \(ECONNREFUSED\)/);
  expect(plan.stderr + plan.stdout).not.toContain("pr0xy-s3cret");
  expect(p.emu.admin.requests()).toEqual([]);
});

test("HTTPS through CONNECT, with a private CA from CUBE_CA_FILE; a proxy that refuses the tunnel is named", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const certFile = fileURLToPath(new URL("../client/fixtures/tls-localhost.crt", import.meta.url));
  const keyFile = fileURLToPath(new URL("../client/fixtures/tls-localhost.key", import.meta.url));
  const httpsUrl = await tlsInFrontOf(p.emu.url, certFile, keyFile);
  const proxy = await startForwardProxy();
  const env = { ...VIA, CUBE_API_URL: httpsUrl, HTTPS_PROXY: proxy.url, CUBE_CA_FILE: certFile };
  const plan = await p.run(["plan", ...RATE], env);
  expect(plan.code, describeRun(plan)).toBe(2);
  const port = new URL(httpsUrl).port;
  expect(proxy.seen.length).toBeGreaterThan(0);
  expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT localhost:${port}`]));

  // Without the CA file the server's certificate is not trusted: the CA file is what made it work.
  const untrusted = await p.run(["plan", ...RATE], { ...env, CUBE_CA_FILE: "" });
  expect(untrusted.code).toBe(1);
  expect(untrusted.stderr).toMatch(/certificate is not trusted/);

  const refusing = await startForwardProxy({ refuseConnect: true });
  const refused = await p.run(["plan", ...RATE], { ...env, HTTPS_PROXY: refusing.url });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`the proxy ${refusing.url} (from HTTPS_PROXY) refused the tunnel to the API (HTTP 403)`);
});

test("item 21: a loopback API goes direct with HTTP_PROXY, HTTPS_PROXY and ALL_PROXY set: 0 requests through the proxy, storage URLs included", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const proxy = await startForwardProxy();
  const everyVariable = { HTTP_PROXY: proxy.url, https_proxy: proxy.url, ALL_PROXY: proxy.url };
  const apply = await p.run(APPLY, everyVariable);
  expect(apply.code, describeRun(apply)).toBe(0);
  expect(p.mutations()).toBeGreaterThan(0);
  const cube = (await p.api.listCubes())[0];
  p.emu.admin.createBackup({ cubeId: cube?.id ?? "", name: "nightly", sizeBytes: 64 * 1024 });
  const download = await p.run(["backup", "download", "nightly", "--out", "copy.cube", ...RATE], everyVariable);
  expect(download.code, describeRun(download)).toBe(0);
  expect(proxy.seen).toEqual([]);
  // localhost, the rest of 127.0.0.0/8 and ::1 are loopback too; other hosts still use the proxy.
  for (const host of ["localhost", "api.localhost", "127.0.0.2", "127.255.0.1", "[::1]", "[::ffff:127.0.0.1]"]) {
    expect(proxyFor(new URL(`http://${host}:8123/api/v1`), everyVariable), host).toBeUndefined();
  }
  for (const host of ["10.0.0.1", "128.0.0.1", "localhost.example.com", "[::2]", "api.krova.cloud"]) {
    expect(proxyFor(new URL(`https://${host}/api/v1`), everyVariable)?.shown, host).toBe(proxy.url);
  }
  // The opt-in is what sends them through it.
  const opted = await p.run(["plan", ...RATE], { ...everyVariable, ...VIA });
  expect(opted.code, describeRun(opted)).toBe(0);
  expect(proxy.seen.length).toBeGreaterThan(0);
});

test("CUBE_CA_FILE that is not a certificate file is one clear line, before any request", async () => {
  const p = await project({ "cubeform.yaml": FLEET });
  const plan = await p.run(["plan", ...RATE], { CUBE_CA_FILE: "/dev/zero" });
  expect(plan.code).toBe(1);
  expect(plan.stderr).toMatch(/CUBE_CA_FILE \/dev\/zero is not a regular file/);
  expect(p.emu.admin.requests()).toEqual([]);
});

/** A TLS endpoint for `localhost` that relays to the emulator's plain http port. */
async function tlsInFrontOf(emulatorUrl: string, certFile: string, keyFile: string): Promise<string> {
  const target = new URL(emulatorUrl);
  const server = createTlsServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (secure) => {
    const plain = connect({ host: "127.0.0.1", port: Number(target.port) });
    secure.pipe(plain).pipe(secure);
    secure.on("error", () => plain.destroy());
    plain.on("error", () => secure.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `https://localhost:${(server.address() as AddressInfo).port}${target.pathname}`;
}
