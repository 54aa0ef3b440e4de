/**
 * The status page of a real `watch --repo` (the built bin) against the emulator, in system Chromium: the page follows a push (the new revision,
 * the drift it brings) and an out-of-band change (a cube deleted) by itself, from /status, with no console error; it reads the same with JavaScript
 * off; `cubeform status` prints it. Nothing secret (userData, a basic-auth password, the page's own credentials) reaches the page, /status, the
 * status command or the log. The screenshot is kept in test-results/ (and written to docs/status-page.png with CUBEFORM_UPDATE_SCREENSHOT=1).
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { testRepo } from "../support/git.js";
import { HAS_CHROMIUM, openBrowser } from "../support/browser.js";
import { APPLY, describeRun, plainFleet, project, RATE, tempDir, waitFor, type Child } from "../reconciler-e2e/support.js";

const USER_DATA = "#cloud-config\nruncmd: [echo join-token-USERDATA-5ecr3t]";
const DOMAIN_PASSWORD = "basic-auth-DOMAIN-5ecr3t";
const PAGE_PASSWORD = "page-PASSWORD-5ecr3t";
const SECRETS = ["USERDATA-5ecr3t", DOMAIN_PASSWORD, PAGE_PASSWORD];

const fleet = (...names: string[]): string =>
  `${plainFleet(...names)}  - name: front\n    userData: ${JSON.stringify(USER_DATA)}\n    domains:\n      - hostname: www.status.example.com\n        port: 8080\n        basicAuthUser: admin\n        basicAuthPassword: \${env:WWW_PASSWORD}\n`;

async function baseUrl(child: Child): Promise<string> {
  const match = await waitFor(() => /status page: (http:\/\/127\.0\.0\.1:\d+)\//.exec(child.stderr()), {
    timeoutMs: 30_000,
    message: `the status page's address\n${child.stderr()}`,
  });
  return match[1] as string;
}

test.skipIf(!HAS_CHROMIUM)(
  "the page follows a push and an out-of-band change, reads with JavaScript off, and shows no secret; cubeform status prints it",
  { timeout: 300_000 },
  async () => {
    const repo = testRepo();
    const c1 = repo.commit({ "cubeform.yaml": fleet("web") });
    const p = await project();
    const env = { ...repo.env, WWW_PASSWORD: DOMAIN_PASSWORD };
    const applied = await p.run([...APPLY, "--repo", repo.url], env);
    expect(applied.code, describeRun(applied)).toBe(0);
    const authFile = join(tempDir(), "status-auth");
    writeFileSync(authFile, `viewer:${PAGE_PASSWORD}\n`);
    const watch = p.start(
      ["watch", "--repo", repo.url, "--interval", "1s", "--metrics-port", "0", "--status-auth-file", authFile, ...RATE],
      env,
    );
    const base = await baseUrl(watch);

    const context = await openBrowser({ httpCredentials: { username: "viewer", password: PAGE_PASSWORD } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) =>
      message.type() === "error" || message.type() === "warning" ? problems.push(message.text()) : undefined,
    );
    page.on("pageerror", (error) => problems.push(error.message));
    expect((await page.goto(`${base}/`))?.status()).toBe(200);
    const source = async (): Promise<string> => (await page.locator("#source").textContent()) ?? "";
    const drift = async (): Promise<string> => (await page.locator("#drift").textContent()) ?? "";
    await waitFor(async () => (await source()).includes(c1.slice(0, 12)) && (await drift()).includes("no drift"), {
      timeoutMs: 60_000,
      message: "c1 in sync on the page",
    });

    // A push: the page (no reload) shows the new revision and the cube it adds as drift (watch without --apply reports it).
    const c2 = repo.commit({ "cubeform.yaml": fleet("web", "db") });
    await waitFor(async () => (await source()).includes(c2.slice(0, 12)) && (await drift()).includes("cube/db"), {
      timeoutMs: 60_000,
      message: `c2 and its drift on the page\n${await source()}\n${await drift()}`,
    });

    // An out-of-band change: web deleted shows as drift (web to create).
    const web = (await p.api.listCubes()).find((cube) => cube.name === "web");
    await p.api.deleteCube(web!.id);
    await waitFor(async () => /cube\/web\s*create/.test(await drift()), {
      timeoutMs: 60_000,
      message: `web's deletion as drift on the page\n${await drift()}`,
    });
    expect(await page.locator("#rounds svg.chart rect.bar").count()).toBeGreaterThan(2);
    expect(problems).toEqual([]);
    mkdirSync("test-results", { recursive: true });
    await page.screenshot({ path: "test-results/status-page.png", fullPage: true });
    if (process.env.CUBEFORM_UPDATE_SCREENSHOT === "1") copyFileSync("test-results/status-page.png", "docs/status-page.png");

    // JavaScript off: the server's rendering says the same.
    const still = await openBrowser({ javaScriptEnabled: false, httpCredentials: { username: "viewer", password: PAGE_PASSWORD } });
    const plain = await still.newPage();
    await plain.goto(`${base}/`);
    const text = (await plain.locator("main").textContent()) ?? "";
    expect(text).toContain(c2.slice(0, 12));
    expect(text).toMatch(/cube\/web\s*create/);

    // cubeform status: text and JSON; without the credentials, a clear refusal.
    const status = await p.run(["status", "--url", base, "--status-auth-file", authFile]);
    expect(status.code, describeRun(status)).toBe(0);
    expect(status.stdout).toContain(`fetched ${c2.slice(0, 12)}`);
    expect(status.stdout).toMatch(/create\s+cube\/web\n/);
    const json = await p.run(["status", "--url", base, "--status-auth-file", authFile, "-o", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ formatVersion: 1, source: { fetchedRevision: c2, lastGoodRevision: c2 } });
    const refused = await p.run(["status", "--url", base]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("asks for credentials");

    // Nothing secret anywhere.
    const statusJson = await (
      await fetch(`${base}/status`, { headers: { authorization: `Basic ${Buffer.from(`viewer:${PAGE_PASSWORD}`).toString("base64")}` } })
    ).text();
    for (const secret of SECRETS) {
      for (const [where, text] of Object.entries({
        page: await page.content(),
        plain: await plain.content(),
        status: statusJson,
        cli: status.stdout + json.stdout + refused.stderr,
        log: watch.stdout() + watch.stderr(),
      })) {
        expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
      }
    }
  },
);
