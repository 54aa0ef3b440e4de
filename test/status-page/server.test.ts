/**
 * The status page and /status over real loopback HTTP (no browser): read-only (405 with Allow), HEAD, the CSP's hashes match the inline
 * script and style, hostile names escaped in text and attributes, bearer and basic auth from the file (probes open), the bounded history,
 * the features' recorder API, and `cubeform status` in text, JSON and YAML.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { parse } from "yaml";
import { WatchStatusRecorder } from "../../reconciler/metrics/status.js";
import { authorizationFor, statusAuth } from "../../reconciler/metrics/status-auth.js";
import { runCli, tempProject } from "../reconciler/support/cli.js";
import { change, feedRound, planOf, statusServer } from "./support.js";

const recorderOf = (): WatchStatusRecorder =>
  new WatchStatusRecorder({ kind: "git", repo: "https://git.example.com/acme/fleet.git", ref: "main", path: "fleet/", files: [] }, true);

test("read-only: 405 with Allow for anything but GET and HEAD; HEAD answers without a body", async () => {
  const server = await statusServer(recorderOf());
  for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
    for (const path of ["/", "/status", "/metrics"]) {
      const response = await fetch(`${server.url}${path}`, { method });
      expect([method, path, response.status, response.headers.get("allow")]).toEqual([method, path, 405, "GET, HEAD"]);
    }
  }
  const head = await fetch(`${server.url}/`, { method: "HEAD" });
  expect(head.status).toBe(200);
  expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(await head.text()).toBe("");
});

test("the CSP allows exactly the page's inline script and style, by their sha256; nothing else loads", async () => {
  const server = await statusServer(recorderOf());
  const response = await fetch(`${server.url}/`);
  const html = await response.text();
  const policy = response.headers.get("content-security-policy") ?? "";
  const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
  const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? "";
  const style = /<style>([\s\S]*)<\/style>/.exec(html)?.[1] ?? "";
  expect(policy).toContain(`script-src ${hash(script)};`);
  expect(policy).toContain(`style-src ${hash(style)};`);
  expect(policy).toMatch(/^default-src 'none';.*frame-ancestors 'none'$/);
  expect(html.match(/<script/g)).toHaveLength(1);
  expect(html).not.toMatch(/\sstyle=|\son\w+=|src=|href="(?:https?:)?\/\//);
  expect((await fetch(`${server.url}/status`)).headers.get("x-content-type-options")).toBe("nosniff");
});

test("hostile names are escaped in text and attributes, in the page and in the script's view", async () => {
  const recorder = recorderOf();
  const hostile = `"><img src=x onerror=alert(1)></script><script>alert(2)</script>'\``;
  feedRound(recorder, 1, {
    drift: [change(hostile, "update", [hostile])],
    revision: hostile,
    plan: planOf(2, [change(hostile)]),
    outcome: "failed",
    error: { code: "x", message: hostile },
  });
  recorder.sourceFailed(hostile);
  const server = await statusServer(recorderOf());
  const own = await statusServer(recorder);
  const html = await (await fetch(`${own.url}/`)).text();
  expect(html).not.toContain("<img");
  expect(html).not.toContain("alert(2)</script>");
  expect(html).toContain(
    "&#34;&#62;&#60;img src=x onerror=alert(1)&#62;&#60;/script&#62;&#60;script&#62;alert(2)&#60;/script&#62;&#39;&#96;",
  );
  expect(html.match(/<script>/g)).toHaveLength(1);
  await server.close();
});

test("bearer token or basic auth from the file guard / and /status; /metrics and the probes stay open", async () => {
  const token = await statusServer(recorderOf(), statusAuth("t0ken-abc\n", "file"));
  expect((await fetch(`${token.url}/status`)).status).toBe(401);
  expect((await fetch(`${token.url}/status`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
  expect((await fetch(`${token.url}/status`, { headers: { authorization: "bearer t0ken-abc" } })).status).toBe(200);
  expect((await fetch(`${token.url}/`, { headers: { authorization: authorizationFor("t0ken-abc") } })).status).toBe(200);
  for (const open of ["/metrics", "/livez", "/readyz", "/healthz"]) expect((await fetch(`${token.url}${open}`)).status).toBe(200);
  const basic = await statusServer(recorderOf(), statusAuth("ops:pa:ss\n", "file"));
  expect((await fetch(`${basic.url}/`)).headers.get("www-authenticate")).toBe('Basic realm="cubeform watch", charset="UTF-8"');
  expect(
    (await fetch(`${basic.url}/`, { headers: { authorization: `Basic ${Buffer.from("ops:pa:ss").toString("base64")}` } })).status,
  ).toBe(200);
  expect((await fetch(`${basic.url}/`, { headers: { authorization: `Basic ${Buffer.from("ops:pass").toString("base64")}` } })).status).toBe(
    401,
  );
  expect(() => statusAuth("\n", "/etc/x")).toThrow("the status auth file /etc/x is empty");
});

test("the history keeps the last 100 rounds and lists 100 changes of a larger drift; plans are not kept", async () => {
  const recorder = recorderOf();
  const drift = Array.from({ length: 250 }, (_, i) => change(`web-${i}`));
  for (let round = 1; round <= 130; round++) feedRound(recorder, round, { drift, plan: planOf(1000, drift), mutations: round });
  const status = recorder.snapshot({ ready: true, live: true }, (t) => t);
  expect(status.rounds).toHaveLength(100);
  expect(status.rounds[0]?.number).toBe(31);
  expect(status.drift.total).toBe(250);
  expect(status.drift.changes).toHaveLength(100);
  expect(status.space).toMatchObject({
    cubes: 1250,
    cost: { perMonth: 4500, afterChanges: 4509, currency: "EUR" },
    budget: { perMonth: 50000, over: false },
  });
  expect(JSON.stringify(status).length).toBeLessThan(100_000);
  expect(status.lastRound).toMatchObject({ number: 130, trigger: "interval", outcome: "succeeded" });
});

test("previews, commit statuses and notifications: null until their feature enables them, then listed newest first, errors redacted", async () => {
  const recorder = recorderOf();
  const redact = (text: string) => text.replaceAll("hunter2", "[redacted]");
  expect(recorder.snapshot({ ready: true, live: true }, redact)).toMatchObject({
    previews: null,
    commitStatuses: null,
    notifications: null,
  });
  recorder.features.enable("previews");
  recorder.features.commitStatusSent({
    at: "2026-01-01T00:00:00.000Z",
    revision: "a".repeat(40),
    state: "success",
    target: "github",
    description: "in sync",
    error: null,
  });
  recorder.features.notificationSent({
    at: "2026-01-01T00:00:01.000Z",
    channel: "ops",
    event: "round-failed",
    ok: false,
    error: "401 for token hunter2",
  });
  const status = recorder.snapshot({ ready: true, live: true }, redact);
  expect(status.previews).toEqual([]);
  expect(status.commitStatuses).toHaveLength(1);
  expect(status.notifications?.[0]?.error).toBe("401 for token [redacted]");
  const server = await statusServer(recorder, undefined, redact);
  const html = await (await fetch(`${server.url}/`)).text();
  expect(html).toMatch(/<section id="previews"><h2>Previews<\/h2><p class="muted">none<\/p>/);
  expect(html).toContain("401 for token [redacted]");
  expect(html).not.toContain("hunter2");
});

test("cubeform status prints /status as text, JSON and YAML, with the auth file; a refusal and a wrong port are clear", async () => {
  const recorder = recorderOf();
  feedRound(recorder, 1, { drift: [change("web")], plan: planOf(3, [change("web")]), revision: "c".repeat(40) });
  recorder.fetched("c".repeat(40));
  const server = await statusServer(recorder, statusAuth("tok-123", "file"));
  const cwd = tempProject();
  const auth = join(cwd, "auth");
  writeFileSync(auth, "tok-123\n");
  const text = await runCli(["status", "--url", server.url, "--status-auth-file", auth], { cwd });
  expect(text.exitCode, text.stderr).toBe(0);
  expect(text.stdout).toContain(`fetched ${"c".repeat(12)}`);
  expect(text.stdout).toMatch(/^Drift \(1\)\n\s+update\s+cube\/web \(resources\.vcpu\)$/m);
  expect(text.stdout).toContain("#1 ");
  const json = await runCli(["status", "--url", `${server.url}/`, "--status-auth-file", auth, "-o", "json"], { cwd });
  expect(JSON.parse(json.stdout)).toMatchObject({ formatVersion: 1, drift: { total: 1 } });
  const yaml = await runCli(["status", "--url", server.url, "--status-auth-file", auth, "--format", "yaml"], { cwd });
  expect(parse(yaml.stdout)).toMatchObject({ formatVersion: 1 });
  const refused = await runCli(["status", "--url", server.url], { cwd });
  expect([refused.exitCode, refused.stderr]).toEqual([
    1,
    expect.stringContaining("asks for credentials: pass the watch's --status-auth-file"),
  ]);
  await server.close();
  const gone = await runCli(["status", "--url", server.url], { cwd });
  expect([gone.exitCode, gone.stderr]).toEqual([1, expect.stringContaining("connection refused")]);
  expect((await runCli(["status"], { cwd })).stderr).toContain("--url");
  const unguarded = await runCli(["watch", "--status-auth-file", auth, "--emulator", "--once"], { cwd });
  expect([unguarded.exitCode, unguarded.stderr]).toEqual([
    1,
    expect.stringContaining("--status-auth-file guards the status page of --metrics-port"),
  ]);
  expect(text.stdout + json.stdout + yaml.stdout + refused.stderr).not.toContain("tok-123");
});
