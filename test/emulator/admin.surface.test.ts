/**
 * The admin surface cannot be driven by a web page the developer visits (issue 23 item 11):
 * cross-site text/plain POSTs are refused (415) and change nothing, a DNS-rebinding Host is
 * refused (421), and URLs the emulator hands out are built on its listening address, never on
 * the Host header. The device-login URL opens a page that approves the code (issue 20 item 11),
 * whose form answers only itself.
 */
import { request } from "node:http";
import { describe, expect } from "vitest";
import { test } from "../support/emulator.js";

interface Answer {
  status: number;
  type: string;
  text: string;
}

/** node:http, so the Host header can be what a rebinding page's request would carry. */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), text }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const JSON_TYPE = { "content-type": "application/json" };

describe("the admin surface against cross-site requests", () => {
  test("a text/plain POST (what any web page can send) is refused with 415 and terminates nothing", async ({ api, emu }) => {
    const cube = await api.createCube({ terminationProtection: true });
    const body = JSON.stringify({ cubeId: cube.id, actorType: "admin", reason: "csrf" });
    for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const refused = await send(`${emu.origin}/__emulator/terminate`, { method: "POST", headers: { "content-type": type }, body });
      expect(refused.status, type).toBe(415);
    }
    const spaces = await send(`${emu.origin}/__emulator/spaces`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    expect(spaces.status).toBe(415);
    expect(spaces.text).not.toContain("ownerKey");
    expect((await api.call("GET", `/cubes/${cube.id}`)).status).toBe(200);
    expect(emu.admin.auditRows({ visibility: "internal" })).toEqual([]);
  });

  test("a Host header that is not loopback (DNS rebinding) is refused with 421, read or write", async ({ api, emu }) => {
    const cube = await api.createCube({ terminationProtection: true });
    const evil = { host: "evil.example" };
    expect((await send(`${emu.origin}/__emulator/requests`, { headers: evil })).status).toBe(421);
    const terminate = await send(`${emu.origin}/__emulator/terminate`, {
      method: "POST",
      headers: { ...evil, ...JSON_TYPE },
      body: JSON.stringify({ cubeId: cube.id, actorType: "admin", reason: "rebinding" }),
    });
    expect(terminate.status).toBe(421);
    expect(
      (await send(`${emu.origin}/__emulator/device?code=KROVA-BCDF-GHJK`, { headers: { host: `evil.example:${emu.port}` } })).status,
    ).toBe(421);
    expect((await api.call("GET", `/cubes/${cube.id}`)).status).toBe(200);
    for (const host of [`127.0.0.1:${emu.port}`, `localhost:${emu.port}`])
      expect((await send(`${emu.origin}/__emulator/request-counts`, { headers: { host } })).status, host).toBe(200);
  });

  test("presigned and device-login URLs name 127.0.0.1:port whatever the Host header says", async ({ api, emu }) => {
    const cube = await api.createCube();
    const backup = emu.admin.createBackup({ cubeId: cube.id, sizeBytes: 1024 });
    const headers = { host: "evil.example:4444", "x-api-key": emu.apiKey };
    const download = JSON.parse((await send(`${emu.url}/spaces/${emu.spaceId}/backups/${backup.id}/download`, { headers })).text) as {
      url: string;
    };
    expect(download.url.startsWith(`http://127.0.0.1:${emu.port}/__storage/`), download.url).toBe(true);
    const login = JSON.parse((await send(`${emu.url}/auth/cli/start`, { method: "POST", headers: { host: "evil.example" } })).text) as {
      verificationUri: string;
      verificationUriComplete: string;
    };
    expect(login.verificationUri).toBe(`http://127.0.0.1:${emu.port}/__emulator/device`);
    expect(login.verificationUriComplete.startsWith(`http://127.0.0.1:${emu.port}/__emulator/device?code=KROVA-`)).toBe(true);
  });
});

describe("the device-login page", () => {
  async function startLogin(emu: { url: string }) {
    const response = await fetch(`${emu.url}/auth/cli/start`, { method: "POST" });
    return (await response.json()) as { deviceCode: string; userCode: string; verificationUriComplete: string };
  }
  const poll = (emu: { url: string }, deviceCode: string) =>
    fetch(`${emu.url}/auth/cli/poll`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ deviceCode }) });
  const formOf = (html: string) =>
    Object.fromEntries([...html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));

  test("the printed URL opens a page with the code and an Approve button; approving it gives the CLI its key", async ({ emu }) => {
    const login = await startLogin(emu);
    const page = await send(login.verificationUriComplete);
    expect(page.status).toBe(200);
    expect(page.type).toContain("text/html");
    expect(page.text).toContain(login.userCode);
    expect(page.text).toMatch(/<button name="answer" value="approve">Approve<\/button>/);
    expect((await poll(emu, login.deviceCode)).status).toBe(428);
    const form = new URLSearchParams({ ...formOf(page.text), answer: "approve" }).toString();
    const approved = await send(`${emu.origin}/__emulator/device/answer`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: emu.origin, "sec-fetch-site": "same-origin" },
      body: form,
    });
    expect(approved.status).toBe(200);
    expect(approved.text).toContain("Approved");
    const key = (await (await poll(emu, login.deviceCode)).json()) as { apiKey: string; spaceId: string };
    expect(key).toMatchObject({ apiKey: expect.stringMatching(/^kro_/), spaceId: emu.spaceId });
  });

  test("the form answers only itself: another site's post, a missing or wrong token do nothing", async ({ emu }) => {
    const login = await startLogin(emu);
    const fields = formOf((await send(login.verificationUriComplete)).text);
    const post = (headers: Record<string, string>, body: Record<string, string>) =>
      send(`${emu.origin}/__emulator/device/answer`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(body).toString(),
      });
    expect((await post({ origin: "https://evil.example" }, { ...fields, answer: "approve" })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "cross-site" }, { ...fields, answer: "approve" })).status).toBe(403);
    expect((await post({}, { code: login.userCode, answer: "approve" })).status).toBe(403);
    expect((await post({}, { code: login.userCode, token: "0".repeat(64), answer: "approve" })).status).toBe(403);
    expect((await poll(emu, login.deviceCode)).status).toBe(428);
  });

  test("whatever the page shows is escaped; an unknown code is a 404 page", async ({ emu }) => {
    const payload = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
    const unknown = await send(`${emu.origin}/__emulator/device?code=${encodeURIComponent(payload)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).not.toContain("<script>");
    expect(unknown.text).not.toContain("<img");
    expect(unknown.text).toContain("&#60;script&#62;");
    const blank = await send(`${emu.origin}/__emulator/device`);
    expect(blank.status).toBe(200);
    expect(blank.text).toContain('<input name="code"');
  });
});
