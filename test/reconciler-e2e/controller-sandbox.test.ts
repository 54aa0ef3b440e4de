/**
 * Issue 31 item 2: the controller examples create a cube in the sandbox they describe. Each manifest
 * (the Dockerfile, the Deployment, the systemd unit) is read for its user, working directory,
 * environment, writable volumes and `watch` arguments; the built bin then runs one round of them
 * as a non-root process (uid 1000 when the tests run as root, as `runAsUser: 1000` / `USER node`)
 * in a working directory it cannot write, every path re-rooted under a temp directory where only
 * the manifest's volumes are writable, against the emulator and a git server on loopback. The
 * state directory is taken from the manifests, so they and this test cannot drift apart.
 */
import { spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, onTestFinished, test } from "vitest";
import { parse } from "yaml";
import { createClient } from "../../client/index.js";
import { startEmulator } from "../../emulator/index.js";
import { serveGitHttp } from "../support/git-http.js";
import { testRepo } from "../support/git.js";
import { BIN, FAST_LIMIT, plainFleet, RATE, type Finished } from "./support.js";

const dir = fileURLToPath(new URL("../../examples/controller/", import.meta.url));
const read = (name: string): string => readFileSync(`${dir}${name}`, "utf8");
const STATE_VARIABLE = "CUBEFORM_STATE_DIR";
const TOKEN = "git-token-for-tests";
const ROOT_RUN = process.getuid?.() === 0;
/** The uid the examples run as: the image's `node` user, the Deployment's runAsUser. */
const SANDBOX_UID = 1000;

/** What a manifest says about the process it runs. */
interface Sandbox {
  /** The process's environment as the manifest sets it (absolute paths as in the manifest). */
  env: Record<string, string>;
  /** Directories the process may write. */
  writable: string[];
  /** Of those, the ones that outlive the process (a volume, a claim, a StateDirectory). */
  persistent: string[];
  /** The working directory. */
  cwd: string;
  /** The `cubeform` arguments, from `watch` on. */
  args: string[];
  /** Files the process reads (secrets, credentials) by their path in the manifest. */
  credentials: Record<string, string>;
}

function dockerfileSandbox(): Sandbox {
  const text = read("Dockerfile").replace(/\\\n/g, " ");
  const env: Record<string, string> = {};
  for (const [, body] of text.matchAll(/^ENV (.*)$/gm))
    for (const [, name, value] of (body ?? "").matchAll(/(\w+)=(\S+)/g)) env[name as string] = value as string;
  const volumes = [...text.matchAll(/^VOLUME (.*)$/gm)].flatMap(([, list]) => JSON.parse(list as string) as string[]);
  const chowned = [...text.matchAll(/chown node:node ((?:\/\S+\s*)+)/g)].flatMap(([, paths]) => (paths as string).trim().split(/\s+/));
  expect(text).toMatch(/^USER node$/m);
  const cmd = JSON.parse(/^CMD (.*)$/m.exec(text)?.[1] ?? "[]") as string[];
  // `docker run IMAGE watch … --repo URL`: the image's command with the source a user adds.
  const args = [...cmd, "--repo", "https://git.example.com/fleet.git", "--path", "fleet", "--git-token-file", "/run/secrets/git-token"];
  return {
    env,
    writable: [...volumes, ...chowned, "/tmp"],
    persistent: volumes,
    cwd: /^WORKDIR (\S+)$/m.exec(text)?.[1] ?? "/",
    args,
    credentials: { "/run/secrets/git-token": TOKEN },
  };
}

interface K8sContainer {
  args: string[];
  workingDir?: string;
  env: { name: string; value?: string }[];
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface K8sVolume {
  name: string;
  emptyDir?: object;
  persistentVolumeClaim?: object;
  secret?: object;
}

function deploymentSandbox(): Sandbox {
  const pod = (
    parse(read("deployment.yaml")) as {
      spec: {
        template: {
          spec: { securityContext: { runAsUser: number; runAsNonRoot: boolean }; containers: K8sContainer[]; volumes: K8sVolume[] };
        };
      };
    }
  ).spec.template.spec;
  expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: SANDBOX_UID });
  const [container] = pod.containers;
  const volumeOf = (name: string): K8sVolume | undefined => pod.volumes.find((v) => v.name === name);
  const mounts = container!.volumeMounts.filter(
    (m) => m.readOnly !== true && (volumeOf(m.name)?.emptyDir !== undefined || volumeOf(m.name)?.persistentVolumeClaim !== undefined),
  );
  const env = Object.fromEntries(container!.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]));
  const args = container!.args;
  const credentials = { [valueAfter(args, "--git-token-file")]: TOKEN, [valueAfter(args, "--push-secret-file")]: "push-secret" };
  return {
    env,
    // The container's own /tmp is writable (no readOnlyRootFilesystem); the working directory is the image's, root's.
    writable: [...mounts.map((m) => m.mountPath), "/tmp"],
    persistent: mounts.filter((m) => volumeOf(m.name)?.persistentVolumeClaim !== undefined).map((m) => m.mountPath),
    cwd: container!.workingDir ?? /^WORKDIR (\S+)$/m.exec(read("Dockerfile"))?.[1] ?? "/",
    args,
    credentials,
  };
}

function systemdSandbox(): Sandbox {
  const text = read("cubeform.service");
  const setting = (name: string): string[] => [...text.matchAll(new RegExp(`^${name}=(.*)$`, "gm"))].map(([, value]) => value as string);
  expect(setting("User")[0]).toMatch(/^(?!root$)\w+$/);
  expect(setting("ProtectSystem")).toEqual(["strict"]);
  const env: Record<string, string> = {};
  for (const line of setting("Environment"))
    for (const [, name, value] of line.matchAll(/(\w+)=(\S+)/g)) env[name as string] = value as string;
  const state = setting("StateDirectory")
    .flatMap((names) => names.split(/\s+/))
    .map((name) => `/var/lib/${name}`);
  const cache = setting("CacheDirectory")
    .flatMap((names) => names.split(/\s+/))
    .map((name) => `/var/cache/${name}`);
  // Under ProtectSystem=strict only these, ReadWritePaths= and the private /tmp are writable.
  const writable = [
    ...state,
    ...cache,
    ...setting("ReadWritePaths").flatMap((paths) => paths.split(/\s+/)),
    ...(setting("PrivateTmp")[0] === "yes" ? ["/tmp"] : []),
  ];
  const credentialsDir = "/run/credentials/cubeform.service";
  const exec = setting("ExecStart")[0] ?? "";
  const command = /cubeform (watch .*?)'?$/.exec(exec)?.[1] ?? "";
  const args = command
    .replace(/"\$CREDENTIALS_DIRECTORY/g, `"${credentialsDir}`)
    .split(/\s+/)
    .map((arg) => arg.replace(/^"|"$/g, ""));
  const credentials = Object.fromEntries(
    setting("LoadCredential").map((line) => [
      `${credentialsDir}/${line.split(":")[0]}`,
      line.startsWith("git-token") ? TOKEN : "credential",
    ]),
  );
  return { env, writable, persistent: state, cwd: setting("WorkingDirectory")[0] ?? "/", args, credentials };
}

function valueAfter(args: readonly string[], flag: string): string {
  const at = args.indexOf(flag);
  expect(at, `${flag} in ${args.join(" ")}`).toBeGreaterThanOrEqual(0);
  return args[at + 1] as string;
}

const under = (path: string, parent: string): boolean => path === parent || path.startsWith(`${parent.replace(/\/$/, "")}/`);

/** A directory the sandbox's user owns (when the tests run as root). */
function makeOwned(path: string): void {
  mkdirSync(path, { recursive: true });
  if (ROOT_RUN) chownSync(path, SANDBOX_UID, SANDBOX_UID);
}

/** The manifest's `watch` arguments pointed at the test's git server, loopback ports and re-rooted files, for one round. */
function testArgs(args: string[], root: string, repoUrl: string): string[] {
  const out = [...args];
  const replace = (flag: string, value: (old: string) => string): void => {
    const at = out.indexOf(flag);
    if (at >= 0) out[at + 1] = value(out[at + 1] as string);
  };
  replace("--repo", () => repoUrl);
  replace("--metrics-host", () => "127.0.0.1");
  replace("--metrics-port", () => "0");
  replace("--listen", () => "127.0.0.1:0");
  for (const flag of ["--git-token-file", "--push-secret-file", "--secrets-dir"]) replace(flag, (path) => join(root, path));
  return [...out, "--once", ...RATE, "--poll-interval", "20"];
}

function runAs(args: string[], cwd: string, env: Record<string, string>): Promise<Finished> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    ...(ROOT_RUN ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {}),
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  onTestFinished(() => void child.kill("SIGKILL"));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

test.each([
  ["Dockerfile", dockerfileSandbox],
  ["deployment.yaml", deploymentSandbox],
  ["cubeform.service", systemdSandbox],
])(
  "%s: the state directory is on a persistent writable volume, and one round creates a cube from a read-only working directory",
  { timeout: 90_000 },
  async (_name, sandboxOf) => {
    const sandbox = sandboxOf();
    const stateDir = sandbox.env[STATE_VARIABLE];
    expect(stateDir, `${STATE_VARIABLE} is set`).toMatch(/^\//);
    expect(
      sandbox.persistent.some((volume) => under(stateDir as string, volume)),
      `${stateDir} is on one of ${sandbox.persistent.join(", ")}`,
    ).toBe(true);
    expect(
      sandbox.writable.some((volume) => under(sandbox.cwd, volume)),
      `the working directory ${sandbox.cwd} is not writable`,
    ).toBe(false);

    const root = mkdtempSync(join(tmpdir(), "cubeform-sandbox-"));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    chmodSync(root, 0o755);
    for (const path of sandbox.writable) makeOwned(join(root, path));
    const cwd = join(root, sandbox.cwd);
    mkdirSync(cwd, { recursive: true });
    chmodSync(cwd, 0o555);
    for (const [path, text] of Object.entries(sandbox.credentials)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text, { mode: 0o400 });
      if (ROOT_RUN) chownSync(join(root, path), SANDBOX_UID, SANDBOX_UID);
    }

    const repo = testRepo();
    repo.commit({ "fleet/web.yaml": plainFleet("web") });
    const git = await serveGitHttp(repo.bare, "x-access-token", TOKEN, repo.env);
    const emu = await startEmulator({ clockSpeed: 200, rateLimit: FAST_LIMIT });
    const api = createClient({ baseUrl: emu.url, apiKey: emu.apiKey, spaceId: emu.spaceId, rateLimit: FAST_LIMIT });
    onTestFinished(async () => {
      await api.close();
      await emu.close();
    });

    const rerooted = Object.fromEntries(
      Object.entries(sandbox.env).map(([name, value]) => [name, value.startsWith("/") ? join(root, value) : value]),
    );
    const env = {
      ...rerooted,
      PATH: process.env.PATH ?? "",
      HOME: join(root, "nonexistent"),
      TMPDIR: join(root, "tmp"),
      NO_COLOR: "1",
      GIT_CONFIG_NOSYSTEM: "1",
      CUBE_API_URL: emu.url,
      CUBE_API_KEY: emu.apiKey,
    };
    const run = await runAs(testArgs(sandbox.args, root, git.url), cwd, env);
    const output = `exit ${run.code ?? run.signal}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    expect(run.stdout, output).toContain("✓ create-cube cube/web");
    expect((await api.listCubes()).map((cube) => cube.name)).toEqual(["web"]);
    expect(existsSync(join(root, stateDir as string, "journal.json")), "the journal is in the manifest's state directory").toBe(true);
    expect(existsSync(join(cwd, ".cubeform"))).toBe(false);
  },
);
