/**
 * The text plan shows every field that will be sent, one per line, nothing cut, wrapped to the
 * width (80 off a terminal; a string such as an SSH key is never split), a domain's settings in
 * the order of the file; secrets as (sensitive).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { renderPlan } from "../../reconciler/render/index.js";
import { FAST, FAST_APPLY, test } from "./support/fixtures.js";
import { FILE_HEADER, SSH_KEY } from "./support/cli.js";

const PASSWORD = "hunter2-very-secret";

function fleet(domain: string, port: string): string {
  return `${FILE_HEADER}  - name: web
    domains:
${domain}
    ports:
${port}
`;
}

const DOMAIN = `      - hostname: www.example.com
        port: 8080
        corsConfig:
          allowedOrigins: [https://one.example.com, https://two.example.com, https://three.example.com]
        ipAllowList: [203.0.113.0/24]
        basicAuthUser: admin
        basicAuthPassword: \${env:WWW_PASSWORD}
        originScheme: https`;
const PORT = `      - cubePort: 5432
        label: postgres
        allow: [203.0.113.0/24]`;

const env = { WWW_PASSWORD: PASSWORD };

/** Every line within the width but a key's: a string is never split (issue 22 item 9), so it stays whole past it. */
function expectFits(text: string, width: number): void {
  for (const line of text.split("\n")) if (!line.includes(SSH_KEY)) expect(line.length, line).toBeLessThanOrEqual(width);
}

test("the apply prompt shows every setting of a new domain, one per line, in the file's order, within 80 columns", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), fleet(DOMAIN, PORT));
  const r = await fx.cli(["apply", ...FAST_APPLY], { ttyInput: "no\n", env });
  expect(r.stdout).toContain("Apply these 3 changes?");
  const domain = r.stdout.slice(r.stdout.indexOf("cube/web/domain/www.example.com"), r.stdout.indexOf("cube/web/port/5432"));
  const fields = [...domain.matchAll(/^ {10}\+ (\w+):/gm)].map((m) => m[1]);
  expect(fields).toEqual(["corsConfig", "ipAllowList", "basicAuthUser", "basicAuthPassword", "originScheme"]);
  for (const origin of ["one", "two", "three"]) expect(domain).toContain(`"https://${origin}.example.com"`);
  expect(domain).toMatch(/\+ basicAuthUser: "admin"\n {10}\+ basicAuthPassword: \(sensitive\)\n {10}\+ originScheme: "https"/);
  expect(r.stdout, "an SSH key on one line, not broken at 80 columns (issue 22 item 9)").toContain(
    `+ sshPublicKey: ${JSON.stringify(SSH_KEY)}\n`,
  );
  expect(r.stdout).not.toContain("…");
  expect(r.stdout).not.toContain(PASSWORD);
  expectFits(r.stdout, 80);
  expect(fx.mutations()).toBe(0);
});

test("updates show each changed setting old → new; replacements every field; deletions what goes", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), fleet(DOMAIN, PORT));
  expect((await fx.cli(["apply", "--auto-approve", ...FAST_APPLY], { env })).exitCode).toBe(0);

  const changed = DOMAIN.replace("originScheme: https", "originScheme: http")
    .replace("[203.0.113.0/24]", "[203.0.113.0/24, 198.51.100.0/24]")
    .replace("basicAuthUser: admin", "basicAuthUser: ops");
  writeFileSync(join(fx.cwd, "cubeform.yaml"), fleet(changed, PORT.replace("label: postgres", "label: pg")));
  const update = await fx.cli(["plan", ...FAST], { env });
  expect(update.exitCode).toBe(2);
  expect(update.stdout).toMatch(
    / {2}~ cube\/web\/domain\/www\.example\.com \(update in place\)\n {6}~ settings\.ipAllowList:\n {10}- \["203\.0\.113\.0\/24"\]\n {10}\+ \["203\.0\.113\.0\/24", "198\.51\.100\.0\/24"\]\n {6}~ settings\.basicAuthUser: "admin" → "ops"\n {6}~ settings\.originScheme: "https" → "http"\n/,
  );
  expect(update.stdout).toMatch(
    /-\/\+ cube\/web\/port\/5432 \(replace[^\n]*\n {8}cubePort: 5432\n {6}~ label: "postgres" → "pg" {2}\(forces replacement\)\n {8}udp: true\n {8}allow: \["203\.0\.113\.0\/24"\]/,
  );
  expectFits(update.stdout, 80);

  writeFileSync(join(fx.cwd, "cubeform.yaml"), fleet("      []", PORT).replace("    domains:\n      []", "    domains: []"));
  const removal = await fx.cli(["plan", ...FAST], { env });
  expect(removal.stdout).toMatch(
    / {2}- cube\/web\/domain\/www\.example\.com \(destroy\)\n {6}- hostname: "www\.example\.com"\n {6}- port: 8080\n/,
  );
  expect(removal.stdout).toContain('- basicAuthUser: "admin"');
  expect(removal.stdout).not.toContain(PASSWORD);
});

test("a narrower terminal gets narrower lines", async ({ fx }) => {
  writeFileSync(join(fx.cwd, "cubeform.yaml"), fleet(DOMAIN, PORT));
  const r = await fx.cli(["plan", "--format", "json", ...FAST], { env });
  const plan = JSON.parse(r.stdout);
  const text = renderPlan(plan, "text", { file: "cubeform.yaml", cubePositions: {}, color: false, width: 50 });
  expectFits(text.split("\nPlan:")[0] ?? "", 50);
  expect(text).toContain('"https://three.example.com"');
});
