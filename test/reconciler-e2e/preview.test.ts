/**
 * `cubeform preview` as CI runs it: the built bin against the emulator on 127.0.0.1. A preview is the file's cubes named
 * NAME-pr-N, small, with hostnames from the preview: block; it is found again from the API alone (down and sweep read no file),
 * never touches a cube that is not a preview, never a protected one, and one over preview.maxMonthly sends nothing.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createClient } from "../../client/index.js";
import { describeRun, FAST_LIMIT, project, RATE, SSH_KEY, type Project } from "./support.js";

const FAST = [...RATE, "--poll-interval", "20"];

const fleet = (extra = "", webPorts = "") => `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 4, ramGb: 8, diskGb: 50 }
  sshPublicKey: ${SSH_KEY}
preview:
  hostname: "{name}-{id}.preview.example.com"
  replicas: 1
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  maxMonthly: 500
cubes:
  - name: web
    replicas: 3
${webPorts}    domains:
      - hostname: "web-{i}.example.com"
        port: 8080
      - hostname: "admin-{i}.example.com"
        port: 9090
  - name: db
    terminationProtection: true
    ports:
      - cubePort: 5432
        label: pg
${extra}`;

const names = async (p: Project) =>
  (await p.api.listCubes())
    .filter((c) => c.state !== "deleted")
    .map((c) => c.name)
    .sort();

async function create(p: Project, name: string, protect = false) {
  return p.api.createCube(
    {
      name,
      image: "ubuntu-24.04",
      resources: { vcpu: 1, ramGb: 1, diskGb: 10 },
      sshPublicKey: SSH_KEY,
      ...(protect ? { terminationProtection: true } : {}),
    },
    { idempotencyKey: `oob-${name}` },
  );
}

describe("cubeform preview", () => {
  test("up makes the small preview with its URLs, cost and ssh commands; again after a push it updates in place", {
    timeout: 120_000,
  }, async () => {
    const p = await project({ "cubeform.yaml": fleet() });
    const up = await p.run(["preview", "up", "--id", "pr-7", "-o", "json", ...FAST]);
    expect(up.code, describeRun(up)).toBe(0);
    const report = JSON.parse(up.stdout);
    expect(report.cubes.map((c: { name: string }) => c.name)).toEqual(["db-pr-7", "web-1-pr-7"]);
    const web = report.cubes.find((c: { name: string }) => c.name === "web-1-pr-7");
    expect(web.urls).toEqual(["https://web-1-pr-7.preview.example.com"]);
    expect(web.ssh).toMatch(/^ssh /);
    expect(report.cost.monthly).toBeGreaterThan(0);
    expect(report.cost.maxMonthly).toBe(500);
    expect(report.converged).toBe(true);
    const live = (await p.api.listCubes()).filter((c) => c.name.endsWith("-pr-7"));
    expect(live.map((c) => c.resources)).toEqual([
      { vcpu: 1, ramGb: 1, diskGb: 10 },
      { vcpu: 1, ramGb: 1, diskGb: 10 },
    ]);
    expect(live.every((c) => !c.terminationProtection)).toBe(true);
    const ids = live.map((c) => c.id).sort();

    // A push: a port added to web. Same cubes (ids), one more mapping; nothing else of the space is read as the preview's.
    writeFileSync(join(p.cwd, "cubeform.yaml"), fleet("", "    ports:\n      - cubePort: 3000\n        label: app\n"));
    const again = await p.run(["preview", "up", "--id", "pr-7", "--format", "markdown", ...FAST]);
    expect(again.code, describeRun(again)).toBe(0);
    expect(again.stdout).toContain("<!-- cubeform-preview:pr-7 -->");
    expect(again.stdout).toContain("| web-1-pr-7 | [web-1-pr-7.preview.example.com](https://web-1-pr-7.preview.example.com) | <code>ssh ");
    expect(again.stdout).toContain("| db-pr-7 | – | <code>ssh ");
    // The comment's cost reads as written: a number in the middle of a line is not escaped as a list marker.
    expect(again.stdout).toMatch(/ · cost \d+\.\d\d EUR\/month/);
    const after = (await p.api.listCubes()).filter((c) => c.name.endsWith("-pr-7"));
    expect(after.map((c) => c.id).sort()).toEqual(ids);
    const web1 = after.find((c) => c.name === "web-1-pr-7");
    expect((await p.api.listTcpMappings(web1!.id)).filter((m) => !m.isSsh).map((m) => m.cubePort)).toEqual([3000]);

    const unchanged = await p.run(["preview", "up", "--id", "pr-7", "-o", "json", ...FAST]);
    expect(unchanged.code, describeRun(unchanged)).toBe(0);
    expect(JSON.parse(unchanged.stdout).mutationsSent).toBe(0);
  });

  test("a preview over preview.maxMonthly is refused before any mutating request", { timeout: 60_000 }, async () => {
    const p = await project({ "cubeform.yaml": fleet().replace("maxMonthly: 500", "maxMonthly: 0.5") });
    const before = p.mutations();
    const up = await p.run(["preview", "up", "--id", "pr-8", ...FAST]);
    expect(up.code, describeRun(up)).toBe(1);
    expect(up.stderr).toMatch(
      /refusing to create the preview: it would cost [\d.]+ \S+\/month, above preview\.maxMonthly 0\.5; nothing was sent/,
    );
    expect(p.mutations() - before).toBe(0);
    expect(await names(p)).toEqual([]);

    // Prices that cannot be read: with a maximum set, refused too (nothing sent).
    writeFileSync(join(p.cwd, "cubeform.yaml"), fleet());
    p.emu.admin.injectFault({ kind: "status", path: "/pricing$", status: 503, times: 1000 });
    const unknown = await p.run(["preview", "up", "--id", "pr-8", ...FAST]);
    expect(unknown.code, describeRun(unknown)).toBe(1);
    expect(unknown.stderr).toMatch(/refusing to create the preview: its cost is unknown .*preview\.maxMonthly is 500; nothing was sent/);
    expect(p.mutations() - before).toBe(0);
  });

  test("down removes exactly that preview, from the API alone; the second time it is a no-op (exit 0)", { timeout: 120_000 }, async () => {
    const p = await project({ "cubeform.yaml": fleet() });
    for (const id of ["pr-1", "pr-2"]) {
      const up = await p.run(["preview", "up", "--id", id, ...FAST]);
      expect(up.code, describeRun(up)).toBe(0);
    }
    await create(p, "web");
    await create(p, "web-1-pr-10");
    // An empty runner: no file at all.
    writeFileSync(join(p.cwd, "cubeform.yaml"), "this is not read");
    const down = await p.run(["preview", "down", "--id", "pr-1", ...FAST]);
    expect(down.code, describeRun(down)).toBe(0);
    expect(down.stdout).toContain("removed 2 cubes of pr-1");
    expect(await names(p)).toEqual(["db-pr-2", "web", "web-1-pr-10", "web-1-pr-2"]);
    const twice = await p.run(["preview", "down", "--id", "pr-1", ...FAST]);
    expect(twice.code, describeRun(twice)).toBe(0);
    expect(twice.stdout).toContain("nothing to remove");
    expect(await names(p)).toEqual(["db-pr-2", "web", "web-1-pr-10", "web-1-pr-2"]);

    const list = await p.run(["preview", "list", "-o", "json", ...FAST]);
    expect(list.code, describeRun(list)).toBe(0);
    expect(JSON.parse(list.stdout).previews.map((x: { id: string }) => x.id)).toEqual(["pr-2", "pr-10"]);
  });

  test("sweep --keep removes the other previews; never a protected cube, never a cube the file declares, never a non-preview", {
    timeout: 120_000,
  }, async () => {
    const p = await project({ "cubeform.yaml": fleet("  - name: legacy-pr-5\n") });
    await create(p, "legacy-pr-5");
    await create(p, "api");
    await create(p, "api-pr-12");
    await create(p, "api-pr-13");
    await create(p, "keepme-pr-14", true);
    await create(p, "web-pr-x");
    const dry = await p.run(["preview", "sweep", "--keep", "pr-12", "--dry-run", "-f", "cubeform.yaml", ...FAST]);
    expect(dry.code, describeRun(dry)).toBe(0);
    expect(dry.stdout).toContain("pr-13: api-pr-13");
    expect(dry.stdout).not.toContain("legacy-pr-5");
    expect(await names(p)).toContain("api-pr-13");

    const before = p.emu.admin.requests().length;
    const sweep = await p.run(["preview", "sweep", "--keep", "pr-12", "-f", "cubeform.yaml", ...FAST]);
    // The protected preview is kept and said so: exit 1.
    expect(sweep.code, describeRun(sweep)).toBe(1);
    expect(sweep.stdout).toMatch(/Kept keepme-pr-14: termination protection is on/);
    expect(await names(p)).toEqual(["api", "api-pr-12", "keepme-pr-14", "legacy-pr-5", "web-pr-x"]);
    const live = await p.api.listCubes();
    const touched = p.emu.admin
      .requests()
      .slice(before)
      .filter((r) => r.mutating)
      .map((r) => r.path);
    const removed = touched.map((path) => path.split("/").pop());
    expect(removed.every((id) => id === live.find((c) => c.name === "api-pr-13")?.id || !live.some((c) => c.id === id))).toBe(true);
    expect(touched).toHaveLength(1);

    // Without the file, legacy-pr-5 is a preview by its name: the file (or protection, or preview.space) is what keeps it.
    const noFile = await p.run(["preview", "sweep", "--keep", "pr-12", "--dry-run", ...FAST]);
    expect(noFile.stdout).toContain("pr-5: legacy-pr-5");
  });

  test("sweep needs --keep or --older-than; an id other than pr-N is refused", { timeout: 60_000 }, async () => {
    const p = await project({ "cubeform.yaml": fleet() });
    const bare = await p.run(["preview", "sweep", ...FAST]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("needs --keep");
    const bad = await p.run(["preview", "up", "--id", "feature-x", ...FAST]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('preview id "feature-x" is not pr-<number>');
    // A keep list of bare numbers would keep nothing; a down of "123" would remove nothing and say it was fine.
    const keep = await p.run(["preview", "sweep", "--keep", "12,15", ...FAST]);
    expect(keep.code).toBe(1);
    expect(keep.stderr).toContain('invalid option --keep: preview id "12" is not pr-<number>');
    const down = await p.run(["preview", "down", "--id", "123", ...FAST]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('invalid option --id: preview id "123" is not pr-<number>');
    expect(p.mutations()).toBe(0);
  });

  test("a domain's basic-auth password reaches the preview's domain, and never its output or files", { timeout: 120_000 }, async () => {
    const secret = "preview-Secret-4f9a2c";
    const withAuth = fleet().replace(
      "        port: 8080\n",
      "        port: 8080\n        basicAuthUser: qa\n        basicAuthPassword: ${env:PREVIEW_PASSWORD}\n",
    );
    const p = await project({ "cubeform.yaml": withAuth });
    const outputs: string[] = [];
    for (const format of ["text", "json", "markdown"]) {
      const up = await p.run(["preview", "up", "--id", "pr-9", "--format", format, ...FAST], { PREVIEW_PASSWORD: secret });
      expect(up.code, describeRun(up)).toBe(0);
      outputs.push(up.stdout, up.stderr);
    }
    const web = (await p.api.listCubes()).find((c) => c.name === "web-1-pr-9");
    expect((await p.api.listDomains(web!.id)).map((d) => [d.hostname, d.basicAuthUser, d.basicAuthEnabled])).toEqual([
      ["web-1-pr-9.preview.example.com", "qa", true],
    ]);
    const down = await p.run(["preview", "down", "--id", "pr-9", "-o", "json", ...FAST]);
    expect(down.code, describeRun(down)).toBe(0);
    outputs.push(down.stdout, down.stderr);
    expect(outputs.join("\n")).toContain("web-1-pr-9.preview.example.com");
    for (const text of outputs) expect(text).not.toContain(secret);
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
    for (const file of [...files(p.cwd), ...files(p.env.XDG_STATE_HOME ?? "")])
      expect(readFileSync(file, "utf8"), file).not.toContain(secret);
  });

  test("preview.space: the preview is made in that space, and down -f finds it there; the fleet's space is not touched", {
    timeout: 120_000,
  }, async () => {
    const p = await project();
    const b = p.emu.admin.createSpace({ name: "previews" });
    writeFileSync(join(p.cwd, "cubeform.yaml"), fleet().replace("preview:\n", `preview:\n  space: ${b.spaceId}\n`));
    const asB = { CUBE_API_KEY: b.ownerKey };
    const up = await p.run(["preview", "up", "--id", "pr-4", "-o", "json", ...FAST], asB);
    expect(up.code, describeRun(up)).toBe(0);
    expect(JSON.parse(up.stdout).spaceId).toBe(b.spaceId);
    const apiB = createClient({ baseUrl: p.emu.url, apiKey: b.ownerKey, spaceId: b.spaceId, rateLimit: FAST_LIMIT });
    try {
      expect((await apiB.listCubes()).map((c) => c.name).sort()).toEqual(["db-pr-4", "web-1-pr-4"]);
      expect(p.emu.admin.requests().filter((r) => r.path.includes(`/spaces/${p.emu.spaceId}/`))).toEqual([]);
      const down = await p.run(["preview", "down", "--id", "pr-4", "-f", "cubeform.yaml", ...FAST], asB);
      expect(down.code, describeRun(down)).toBe(0);
      expect((await apiB.listCubes()).filter((c) => c.state !== "deleted")).toEqual([]);
    } finally {
      await apiB.close();
    }
  });
});
