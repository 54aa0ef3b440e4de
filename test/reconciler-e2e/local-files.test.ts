/**
 * Where cubeform writes on the operator's machine (issue 23 items 4–6, issue 20 item 8): a
 * filename from the API stays in the working directory, planted symlinks are replaced and never
 * written through, files holding secrets or disk images are 0600 (directories 0700) under
 * umask 022 and keep a mode the user set, and the space lock is per machine.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, expect, onTestFinished, test } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import {
  APPLY,
  RATE,
  createPlainCube,
  cubeNameCounts,
  describeRun,
  plainFleet,
  project,
  startBin,
  tempDir,
  twoAppliesOnOneLock,
  type Project,
} from "./support.js";

let umask: number;
beforeEach(() => void (umask = process.umask(0o022)));
afterEach(() => void process.umask(umask));

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Another file of the user's (0644), and a link to it planted at `path`. */
function plantLink(path: string, victim: string): void {
  writeFileSync(victim, "precious\n");
  chmodSync(victim, 0o644);
  symlinkSync(victim, path);
}

function expectUntouched(victim: string): void {
  expect(readFileSync(victim, "utf8")).toBe("precious\n");
  expect(modeOf(victim)).toBe(0o644);
}

/** A proxy to the emulator that answers a backup download link with `filename` (a compromised API). */
async function hostileFilenameProxy(emu: RunningEmulator, filename: string): Promise<string> {
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += (chunk as Buffer).toString();
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !["host", "connection", "content-length"].includes(name)),
    ) as Record<string, string>;
    const answer = await fetch(`${emu.origin}${req.url}`, { method: req.method ?? "GET", headers, ...(body ? { body } : {}) });
    let text = await answer.text();
    if (/\/backups\/[^/]+\/download/.test(req.url ?? ""))
      text = text.replace(/"filename":"[^"]*"/, `"filename":${JSON.stringify(filename)}`);
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

async function backupOf(p: Project, sizeBytes: number) {
  const cube = await createPlainCube(p.api, "db", "create-db");
  return p.emu.admin.createBackup({ cubeId: cube.id, name: "nightly", sizeBytes });
}

test("issue 32 item 5: a backup's filename from the API is only a plain name: a path, a dotfile or a control character is saved as <backup-id>.cube, and said", async () => {
  const p = await project();
  const backup = await backupOf(p, 4096);
  const cwd = join(p.cwd, "ops", "backups");
  mkdirSync(cwd, { recursive: true });
  const outside = tempDir();
  for (const filename of [
    "../../.bashrc",
    ".bashrc",
    "..",
    join(outside, "evil.cube"),
    "evil\\..\\..\\.profile",
    "a\nb.cube",
    "x\u001b[2Jy.cube",
    "\u202egnp.cube",
  ]) {
    rmSync(join(cwd, `${backup.id}.cube`), { force: true });
    const url = await hostileFilenameProxy(p.emu, filename);
    const run = await startBin(["backup", "download", "nightly", ...RATE], { cwd, env: { ...p.env, CUBE_API_URL: url } }).exited;
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stderr).toContain(
      `which is not a plain file name (a path, a hidden file or a control character); saving it as ${backup.id}.cube`,
    );
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(readdirSync(cwd)).toEqual([`${backup.id}.cube`]);
    expect(statSync(join(cwd, `${backup.id}.cube`)).size).toBe(4096);
  }
  expect(existsSync(join(p.cwd, ".bashrc"))).toBe(false);
  expect(existsSync(join(outside, "evil.cube"))).toBe(false);
  // A plain name is used as the API gives it.
  const plain = await startBin(["backup", "download", "nightly", ...RATE], {
    cwd,
    env: { ...p.env, CUBE_API_URL: await hostileFilenameProxy(p.emu, "nightly 2026-11-28.cube") },
  }).exited;
  expect(plain.code, describeRun(plain)).toBe(0);
  expect(plain.stderr).not.toContain("not a plain file name");
  expect(statSync(join(cwd, "nightly 2026-11-28.cube")).size).toBe(4096);
}, 120_000); // nine runs of the bin, one after the other

// client/download.ts creates FILE.part with the umask's mode (0644): it is to open it with
// system/files.ts openForAppendNoFollow (0600, no symlink). Passes while that gap is open.
test("a downloaded backup archive is 0600 under umask 022", async () => {
  const p = await project();
  await backupOf(p, 4096);
  const run = await p.run(["backup", "download", "nightly", ...RATE]);
  expect(run.code, describeRun(run)).toBe(0);
  expect(modeOf(join(p.cwd, "nightly.cube"))).toBe(0o600);
});

test("a planted secretFile link is replaced: the secret goes to a 0600 file, never into the link's target", async () => {
  const p = await project({
    "cubeform.yaml": `${plainFleet("web")}webhooks:\n  - url: https://hooks.example.com/cube\n    events: [cube.deleted]\n    secretFile: secrets/hook.secret\n`,
  });
  mkdirSync(join(p.cwd, "secrets"));
  const victim = join(p.cwd, "authorized_keys");
  plantLink(join(p.cwd, "secrets", "hook.secret"), victim);
  const applied = await p.run(APPLY);
  expect(applied.code, describeRun(applied)).toBe(0);
  expectUntouched(victim);
  const secretFile = join(p.cwd, "secrets", "hook.secret");
  expect(lstatSync(secretFile).isSymbolicLink()).toBe(false);
  expect(readFileSync(secretFile, "utf8")).toMatch(/\S{16,}/);
  expect(modeOf(secretFile)).toBe(0o600);
});

test("import -O FILE --force over a planted link writes FILE, not the link's target", async () => {
  const p = await project();
  await createPlainCube(p.api, "web", "web-1");
  const victim = join(p.cwd, "victim.yaml");
  plantLink(join(p.cwd, "fleet.yaml"), victim);
  const refused = await p.run(["import", "-O", "fleet.yaml", ...RATE]);
  expect(refused.code).toBe(1);
  const imported = await p.run(["import", "-O", "fleet.yaml", "--force", ...RATE]);
  expect(imported.code, describeRun(imported)).toBe(0);
  expectUntouched(victim);
  expect(readFileSync(join(p.cwd, "fleet.yaml"), "utf8")).toContain("name: web");
});

test("under umask 022, .cubeform/ is 0700, the emulator's state and a saved plan are 0600, and a mode the user set is kept", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "cubeform.yaml"), plainFleet("web"));
  const run = (args: string[]) => startBin([...args, "--emulator"], { cwd, env: {} }).exited;
  const applied = await run(["apply", "--auto-approve", "--poll-interval", "20"]);
  expect(applied.code, describeRun(applied)).toBe(0);
  const state = join(cwd, ".cubeform", "emulator-state.json");
  expect(modeOf(join(cwd, ".cubeform"))).toBe(0o700);
  expect(modeOf(state)).toBe(0o600);
  writeFileSync(join(cwd, "cubeform.yaml"), plainFleet("web", "api"));
  const planned = await run(["plan", "--out", "plan.json"]);
  expect(planned.code, describeRun(planned)).toBe(2);
  expect(modeOf(join(cwd, "plan.json"))).toBe(0o600);
  chmodSync(state, 0o640);
  const again = await run(["apply", "--auto-approve", "--poll-interval", "20"]);
  expect(again.code, describeRun(again)).toBe(0);
  expect(JSON.parse(readFileSync(state, "utf8")).cubes ?? {}).toBeDefined();
  expect(modeOf(state)).toBe(0o640);
});

test("two applies with different HOME and XDG_STATE_HOME serialize on the space lock: one cube per name", async () => {
  const p = await project({ "cubeform.yaml": plainFleet("api", "worker") });
  await twoAppliesOnOneLock(p, () => ({ HOME: tempDir(), XDG_STATE_HOME: tempDir() }));
  expect(await cubeNameCounts(p.api)).toEqual({ api: 1, worker: 1 });
});
