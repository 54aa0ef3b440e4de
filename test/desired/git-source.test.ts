/** A git repository as the source (issue 21): real git on bare repositories made here, read through file://. */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { expect, test } from "vitest";
import { GitSourceError, SourceError } from "../../desired/errors.js";
import { GitSource, gitArgv, gitEnv, normalizeUrl } from "../../desired/git-source.js";
import { RepoLoader } from "../../desired/repo-load.js";
import { testRepo, type TestRepo } from "../support/git.js";
import { listenUntilTestEnds } from "../support/listen.js";
import { waitFor } from "../support/wait.js";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp t@example";
const fleet = (...names: string[]): string =>
  `apiVersion: cubeform/v1\ndefaults:\n  image: ubuntu-24.04\n  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n  sshPublicKey: ${KEY}\ncubes:\n${names.map((n) => `  - name: ${n}\n`).join("")}`;

function loader(repo: TestRepo, options: { ref?: string; path?: string; token?: string } = {}): RepoLoader {
  const source = new GitSource({
    url: repo.url,
    cwd: repo.work,
    env: repo.env,
    timeoutMs: 20_000,
    ...(options.ref ? { ref: options.ref } : {}),
    ...(options.token ? { credentials: () => ({ token: options.token as string }) } : {}),
  });
  return new RepoLoader({ source, path: options.path ?? "cubeform.yaml", env: repo.env });
}

const names = (loaded: { desired: { cubes: { name: string }[] } }): string[] => loaded.desired.cubes.map((c) => c.name);

test("loads the fleet at the head of the default branch and names its commit; an unchanged commit is answered without loading again", async () => {
  const repo = testRepo();
  const commit = repo.commit({ "cubeform.yaml": fleet("web") });
  const repoLoader = loader(repo);
  const first = await repoLoader.load();
  expect(names(first)).toEqual(["web"]);
  expect(first.revision).toEqual({ repo: repo.url, ref: "HEAD", revision: commit, path: "cubeform.yaml" });
  const again = await repoLoader.load();
  expect(again).toBe(first);
  const next = repo.commit({ "cubeform.yaml": fleet("web", "db") });
  const second = await repoLoader.load();
  expect(names(second)).toEqual(["web", "db"]);
  expect(second.revision.revision).toBe(next);
});

test("follows a branch, a tag or a commit id; a directory path loads each .yaml file in it", async () => {
  const repo = testRepo();
  const old = repo.commit({ "fleet/a.yaml": fleet("a"), "fleet/b.yaml": fleet("b") });
  repo.git("tag", "v1");
  repo.git("push", "--quiet", "origin", "v1");
  repo.commit({ "fleet/c.yaml": fleet("c") }, "on a branch", "staging");
  expect(names(await loader(repo, { ref: "staging", path: "fleet" }).load())).toEqual(["a", "b", "c"]);
  expect(names(await loader(repo, { ref: "v1", path: "fleet" }).load())).toEqual(["a", "b"]);
  expect((await loader(repo, { ref: old, path: "fleet" }).load()).revision.revision).toBe(old);
});

test("a force-push to an older commit loads that commit", async () => {
  const repo = testRepo();
  const first = repo.commit({ "cubeform.yaml": fleet("web") });
  repo.commit({ "cubeform.yaml": fleet("web", "db") });
  const repoLoader = loader(repo);
  expect(names(await repoLoader.load())).toEqual(["web", "db"]);
  repo.git("reset", "--quiet", "--hard", first);
  repo.git("push", "--quiet", "--force", "origin", "HEAD:refs/heads/main");
  const loaded = await repoLoader.load();
  expect(loaded.revision.revision).toBe(first);
  expect(names(loaded)).toEqual(["web"]);
});

test("a deleted branch or an absent path is an error naming what is missing, never an empty fleet", async () => {
  const repo = testRepo();
  repo.commit({ "cubeform.yaml": fleet("web") });
  repo.commit({ "cubeform.yaml": fleet("web") }, "branch", "feature");
  const onBranch = loader(repo, { ref: "feature" });
  await onBranch.load();
  repo.git("push", "--quiet", "origin", ":refs/heads/feature");
  await expect(onBranch.load()).rejects.toThrow(GitSourceError);
  await expect(onBranch.load()).rejects.toThrow(/couldn't find remote ref feature/);

  const commit = repo.commit({ "cubeform.yaml": null, "other.yaml": fleet("x") });
  const error = await loader(repo)
    .load()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SourceError);
  expect((error as Error).message).toContain(`commit ${commit.slice(0, 12)} has no cubeform.yaml`);
});

test("an https token reaches git in its environment only, scoped to the repository's origin: never argv, never the clone's config, never an error", async () => {
  const token = "ghp_SECRETtoken1234567890";
  const env = gitEnv(
    { PATH: "/bin", GIT_DIR: "/elsewhere" },
    "https://git.example.com/acme/fleet.git",
    { token, username: "x-access-token" },
    "/cache/home",
  );
  const argv = gitArgv("/cache/x", ["fetch", "--depth", "1", "--", "https://git.example.com/acme/fleet.git", "main"]);
  expect(argv.join(" ")).not.toContain(token);
  expect(env.GIT_DIR).toBeUndefined();
  expect(env.GIT_TERMINAL_PROMPT).toBe("0");
  const keys = Object.keys(env)
    .filter((k) => k.startsWith("GIT_CONFIG_KEY_"))
    .map((k) => env[k]);
  expect(keys).toContain("http.https://git.example.com/.extraHeader");
  const header = Object.keys(env)
    .filter((k) => k.startsWith("GIT_CONFIG_VALUE_"))
    .map((k) => env[k])
    .find((v) => v?.startsWith("Authorization"));
  expect(Buffer.from(String(header).replace("Authorization: Basic ", ""), "base64").toString()).toBe(`x-access-token:${token}`);

  const repo = testRepo();
  repo.commit({ "cubeform.yaml": fleet("web") });
  const withToken = loader(repo, { token });
  await withToken.load();
  const clones = join(repo.env.XDG_CACHE_HOME as string, "cubeform", "git");
  const config = readFileSync(join(clones, readdirOne(clones), ".git", "config"), "utf8");
  expect(config).not.toContain(token);
  expect(config).not.toContain(Buffer.from(`x-access-token:${token}`).toString("base64"));
  const failing = new GitSource({
    url: repo.url,
    ref: "nope",
    cwd: repo.work,
    env: repo.env,
    timeoutMs: 20_000,
    credentials: () => ({ token }),
  });
  const message = String(await failing.sync().catch((e: unknown) => (e as Error).message));
  expect(message).toMatch(/couldn't find remote ref nope/);
  expect(message).not.toContain(token);
});

test("an ssh key and known-hosts file go to ssh through GIT_SSH_COMMAND, with host keys checked", () => {
  const env = gitEnv(
    {},
    "ssh://git@example.com/fleet.git",
    { sshKeyFile: "/keys/deploy key", knownHostsFile: "/keys/known_hosts" },
    "/cache/home",
  );
  expect(env.GIT_SSH_COMMAND).toBe(
    "ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes -i '/keys/deploy key' -o 'UserKnownHostsFile=/keys/known_hosts'",
  );
});

test.each([
  ["https://user:pw@example.com/r.git", /no credentials in the URL/],
  ["https://token@example.com/r.git", /no credentials in the URL/],
  ["ext::sh -c touch% /tmp/pwned", /transport::address/],
  ["--upload-pack=touch /tmp/pwned", /not a repository URL/],
  ["http://git.example.com/r.git", /plain http is refused/],
  ["ftp://example.com/r.git", /only https/],
])("refuses the repository URL %s", (url, message) => {
  expect(() => normalizeUrl(url, "/")).toThrow(message);
});

test("accepts https, ssh (both forms), file:// and a local path (made file://)", () => {
  expect(normalizeUrl("https://github.com/acme/fleet.git", "/")).toBe("https://github.com/acme/fleet.git");
  expect(normalizeUrl("git@github.com:acme/fleet.git", "/")).toBe("git@github.com:acme/fleet.git");
  expect(normalizeUrl("ssh://git@github.com/acme/fleet.git", "/")).toBe("ssh://git@github.com/acme/fleet.git");
  expect(normalizeUrl("repos/fleet.git", "/work")).toBe("file:///work/repos/fleet.git");
});

test("a remote that does not answer fails the fetch at the timeout", async () => {
  const sockets = new Set<Socket>();
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    // accepts and never answers
    sockets.add(socket);
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.resume();
  });
  const origin = await listenUntilTestEnds(server);
  const repo = testRepo();
  const source = new GitSource({ url: `${origin}/fleet.git`, cwd: repo.work, env: repo.env, timeoutMs: 800 });
  const started = Date.now();
  await expect(source.sync()).rejects.toThrow(/git fetch .* timed out after 1 s/);
  expect(Date.now() - started).toBeLessThan(5_000);
  // git's helper (git-remote-http) was killed with it: nothing holds the connection open.
  expect(sockets.size).toBeGreaterThan(0);
  await waitFor(() => open.size === 0, { timeoutMs: 5_000, message: "the connections closed" });
});

test("issue 21 item 7: a repository that grows large: 30 pushes replacing a 384 KiB file keep the cached clone under 2 MiB", {
  timeout: 120_000,
}, async () => {
  const repo = testRepo();
  const repoLoader = loader(repo);
  const clones = join(repo.env.XDG_CACHE_HOME as string, "cubeform", "git");
  let largest = 0;
  for (let push = 0; push < 30; push++) {
    const commit = repo.commit({ "cubeform.yaml": fleet("web"), "assets/big.bin": randomBytes(288 * 1024).toString("base64") });
    expect((await repoLoader.load()).revision.revision).toBe(commit);
    largest = Math.max(largest, bytesUnder(join(clones, readdirOne(clones), ".git")));
  }
  // 30 × ~0.3 MiB (compressed) were fetched; the old commits' objects are collected as they go.
  expect(largest).toBeLessThan(2 * 2 ** 20);
  expect(bytesUnder(repo.bare)).toBeGreaterThan(8 * 2 ** 20);
});

function bytesUnder(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isFile() ? statSync(join(e.parentPath, e.name)).size : 0),
    0,
  );
}

function readdirOne(dir: string): string {
  const [entry] = readdirSync(dir).filter((name) => !name.endsWith(".lock"));
  return entry as string;
}
