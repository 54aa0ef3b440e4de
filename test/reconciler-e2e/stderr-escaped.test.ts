/**
 * Issue 32 item 3: stderr is escaped like stdout. A hostile API (a rewriting proxy in front of the
 * emulator) names a cube `a1\n::error::injected\r\x1b[2K…`; what the bin prints on stderr from it
 * — the --wait progress of `cube restart` and `snapshot take`, `cube ssh`'s note on a stopped cube,
 * `login`'s URL and code, `upload`'s import line — holds no raw line break, CR or ESC, and no line
 * the GitHub Actions runner would obey as a workflow command (it trims blanks and also ends a line
 * at CR).
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { rewritingProxy, type Exchange } from "../support/rewriting-proxy.js";
import { describeRun, project, RATE, SSH_KEY, tempDir, waitFor, type Finished, type Project } from "./support.js";

const HOSTILE = "a1\n::error::injected\r\u001b[2Kfake line";
/** A value that starts a line by itself: `  NAME: status` is a workflow command once trimmed. */
const LEADING = "::error::leading";
const WAIT = ["--wait", "--interval", "50ms", ...RATE];

/** The snapshot lists answered as still being taken (the fast clock completes it before the first poll). */
let pendingLists = 0;

/** Every JSON answer with cube "web" and snapshot "snap" renamed; the start of a login and of an import rewritten. */
function hostile(x: Exchange): { status: number; body: unknown } | undefined {
  if (typeof x.body !== "object" || x.body === null) return undefined;
  let text = JSON.stringify(x.body);
  if (x.method === "GET" && /\/snapshots$/.test(x.path) && pendingLists-- > 0)
    text = text.replaceAll('"status":"complete"', '"status":"creating"');
  text = text
    .replaceAll('"name":"web"', `"name":${JSON.stringify(HOSTILE)}`)
    .replaceAll('"name":"snap"', `"name":${JSON.stringify(LEADING)}`);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (x.path.endsWith("/auth/cli/start"))
    Object.assign(body, { userCode: HOSTILE, verificationUriComplete: `https://login.example/${HOSTILE}` });
  if (x.method === "POST" && /\/cubes\/imports$/.test(x.path)) {
    const started = (body.import as Record<string, unknown> | undefined) ?? body;
    started.importId = HOSTILE;
  }
  text = JSON.stringify(body);
  return { status: x.status, body: JSON.parse(text) };
}

function expectInert(run: Finished): void {
  for (const stream of [run.stderr, run.stdout]) {
    expect(stream).not.toContain("\u001b");
    expect(stream).not.toContain("\r");
    for (const line of stream.split("\n"))
      expect(line.trimStart().startsWith("::"), `a workflow command: ${JSON.stringify(line)}`).toBe(false);
  }
}

async function cube(p: Project, state: "running" | "stopped"): Promise<string> {
  const created = await p.api.createCube(
    { name: "web", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "create-web" },
  );
  await waitFor(async () => ((await p.api.getCube(created.id)).state === "running" ? true : undefined));
  if (state === "stopped") {
    await p.api.powerOff(created.id);
    await waitFor(async () => ((await p.api.getCube(created.id)).state === "stopped" ? true : undefined));
  }
  return created.id;
}

test("item 3: cube restart --wait and snapshot take --wait print the API's names escaped on stderr", async () => {
  const p = await project();
  const id = await cube(p, "running");
  const env = { CUBE_API_URL: await rewritingProxy(p.emu, hostile) };
  const restart = await p.run(["cube", "restart", id, ...WAIT], env);
  expect(restart.code, describeRun(restart)).toBe(0);
  expect(restart.stderr).toContain("  a1\\n::error::injected\\r\\u001b[2Kfake line: ");
  expectInert(restart);

  pendingLists = 2;
  const snapshot = await p.run(["snapshot", "take", id, "--name", "snap", ...WAIT], env);
  expect(snapshot.code, describeRun(snapshot)).toBe(0);
  expect(snapshot.stderr).toContain("  \\u003a:error::leading: ");
  expectInert(snapshot);
});

test("item 3: cube ssh's note on a stopped cube, and upload's import line, are escaped", async () => {
  const p = await project();
  const id = await cube(p, "stopped");
  const env = { CUBE_API_URL: await rewritingProxy(p.emu, hostile), XDG_CONFIG_HOME: tempDir() };
  const ssh = await p.run(["cube", "ssh", id, ...RATE], env);
  expect(ssh.stderr).toContain('Note: cube "a1\\n::error::injected\\r\\u001b[2Kfake line" is stopped');
  expectInert(ssh);

  writeFileSync(join(p.cwd, "web.cube"), randomBytes(1024 * 1024 + 1));
  const upload = await p.run(
    ["upload", "web.cube", "--name", "restored", "--ssh-key", SSH_KEY, "--vcpu", "1", "--ram-gb", "1", "--disk-gb", "10", ...RATE],
    env,
  );
  expect(upload.stderr).toContain("import a1\\n::error::injected\\r\\u001b[2Kfake line: ");
  expectInert(upload);
});

test("item 3: login's URL and code from the API are escaped", async () => {
  const p = await project();
  const proxy = await rewritingProxy(p.emu, hostile);
  const child = p.start(["login", "--base-url", proxy], { CUBE_API_KEY: "", CUBE_API_URL: "", XDG_CONFIG_HOME: tempDir() });
  await waitFor(() => (child.stderr().includes("Waiting") ? true : undefined), { timeoutMs: 20_000, message: "the login code" });
  child.process.kill("SIGTERM");
  const login = await child.exited;
  expect(login.stderr).toContain("To log in, open https://login.example/a1\\n::error::injected\\r\\u001b[2Kfake line\n");
  expect(login.stderr).toContain("and confirm the code a1\\n::error::injected\\r\\u001b[2Kfake line (it expires");
  expectInert(login);
});
