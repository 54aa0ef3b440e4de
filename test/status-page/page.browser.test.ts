/**
 * The status page in a real browser (system Chromium, playwright-core): hostile names from the API, the file or git render as text and run
 * nothing, with JavaScript on (server rendering, then the script's refresh from /status) and off; the Content-Security-Policy holds (no
 * console error, no violation); a 405 for anything but GET/HEAD; basic auth from the file. The server is the one watch runs, fed rounds here.
 */
import { mkdirSync } from "node:fs";
import { expect, test } from "vitest";
import { WatchStatusRecorder } from "../../reconciler/metrics/status.js";
import { statusAuth } from "../../reconciler/metrics/status-auth.js";
import { HAS_CHROMIUM, openBrowser } from "../support/browser.js";
import { change, feedRound, planOf, statusServer } from "./support.js";

const browserTest = test.skipIf(!HAS_CHROMIUM);

const IMG = `<img src=x onerror="window.__pwned='img'">`;
const SCRIPT = `</script><script>window.__pwned='script'</script>`;
const QUOTE = `" onmouseover="window.__pwned='attr'`;

function hostileRecorder(): WatchStatusRecorder {
  const recorder = new WatchStatusRecorder(
    { kind: "git", repo: `https://git.example.com/${SCRIPT}.git`, ref: QUOTE, path: "fleet/", files: [] },
    true,
  );
  recorder.connected("space-1", {
    pacer: {
      limit: 10,
      windowMs: 60_000,
      waiting: 0,
      store: { recent: () => [1, 2, 3], take: () => ({ id: "" }), redate: () => undefined } as never,
    },
  });
  const drift = [change(IMG), change(SCRIPT, "delete-then-create", [QUOTE])];
  for (let round = 1; round <= 12; round++) {
    feedRound(recorder, round, {
      durationMs: 400 + round * 90,
      mutations: round % 4,
      drift,
      revision: "a".repeat(40),
      plan: planOf(30, drift, { groups: [{ name: IMG, replicas: 4, live: 4, replacing: 2, rollout: { batches: 2 } } as never] }),
      ...(round === 7 ? { outcome: "failed" as const, error: { code: "x", message: `API said ${IMG}` } } : {}),
    });
  }
  recorder.fetched("b".repeat(40));
  recorder.sourceFailed(`cubeform.yaml:3:5: ${SCRIPT}`);
  return recorder;
}

async function checkNothingRan(page: import("playwright-core").Page): Promise<void> {
  expect(await page.evaluate(() => (globalThis as { __pwned?: string }).__pwned ?? null).catch(() => null)).toBeNull();
  expect(await page.locator("main img").count()).toBe(0);
  expect(await page.locator("main script").count()).toBe(0);
  const text = (await page.locator("main").textContent()) ?? "";
  for (const payload of [IMG, SCRIPT]) expect(text).toContain(payload);
  expect(text).toContain("onmouseover");
}

browserTest(
  "hostile names render as text and run nothing, with the script's refresh too; no console error and no CSP violation",
  { timeout: 120_000 },
  async () => {
    const server = await statusServer(hostileRecorder());
    const context = await openBrowser();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    const response = await page.goto(`${server.url}/`);
    expect(response?.status()).toBe(200);
    const headers = response?.headers() ?? {};
    expect(headers["content-security-policy"]).toMatch(
      /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("no-referrer");
    await checkNothingRan(page);
    // The script ran (its hash is allowed) and rendered the sections again from /status.
    await page.waitForFunction(() => (globalThis as any).document.getElementById("stamp")?.textContent?.startsWith("updated"), undefined, {
      timeout: 60_000,
    });
    await checkNothingRan(page);
    expect(await page.locator("#rounds svg.chart rect.bar").count()).toBe(12);
    expect(await page.locator("#rounds svg.chart rect.bar.failed").count()).toBe(1);
    expect(await page.locator("#rollouts svg.rollout").count()).toBe(1);
    expect(await page.locator("#pacing").innerText()).toContain("7 of 10");
    expect(await page.locator("#previews").innerText()).toContain("not enabled");
    expect(problems).toEqual([]);
    mkdirSync("test-results", { recursive: true });
    await page.screenshot({ path: "test-results/status-page.hostile.png", fullPage: true });
  },
);

browserTest("with JavaScript off the page shows everything, server-rendered", { timeout: 120_000 }, async () => {
  const server = await statusServer(hostileRecorder());
  const context = await openBrowser({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${server.url}/`);
  const text = (await page.locator("main").textContent()) ?? "";
  expect(text).toContain("Last rounds");
  expect(text).toContain("a".repeat(12));
  expect(text).toContain("135.00 EUR");
  expect(await page.locator("#stamp").innerText()).toMatch(/^rendered /);
  await checkNothingRan(page);
});

browserTest(
  "with an auth file, the page asks for basic auth and opens with it; /metrics and the probes stay open",
  { timeout: 120_000 },
  async () => {
    const server = await statusServer(hostileRecorder(), statusAuth("viewer:s3cret-pass\n", "auth"));
    expect((await fetch(`${server.url}/`)).status).toBe(401);
    expect((await fetch(`${server.url}/status`)).headers.get("www-authenticate")).toContain("Basic");
    expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${server.url}/livez`)).status).toBe(200);
    const refused = await openBrowser({ httpCredentials: { username: "viewer", password: "wrong" } });
    expect((await (await refused.newPage()).goto(`${server.url}/`))?.status()).toBe(401);
    const context = await openBrowser({ httpCredentials: { username: "viewer", password: "s3cret-pass" } });
    const page = await context.newPage();
    expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
    await page.waitForFunction(() => (globalThis as any).document.getElementById("stamp")?.textContent?.startsWith("updated"), undefined, {
      timeout: 60_000,
    });
    expect(await page.content()).not.toContain("s3cret-pass");
  },
);
