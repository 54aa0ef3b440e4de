/**
 * A commit may not reach outside its checkout (issue 21; the path-traversal class of Argo CD's
 * CVE-2022-24348 / CVE-2022-24730 / CVE-2023-40026): absolute paths, ".." escapes and symlinks
 * out of the checkout are located errors, and a webhook's secretFile lands under --secrets-dir.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { formatProblem, LoadError, SourceError } from "../../desired/errors.js";
import { inCliWords } from "../../reconciler/hints.js";
import { GitSource } from "../../desired/git-source.js";
import { RepoLoader } from "../../desired/repo-load.js";
import { testRepo, type TestRepo } from "../support/git.js";

const HEAD = `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
`;
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp t@example\n";

/** A secret outside the repository that a hostile commit tries to read. */
function outsideSecret(): string {
  const path = join(mkdtempSync(join(tmpdir(), "cubeform-outside-")), "secret.txt");
  writeFileSync(path, "TOP-SECRET-OUTSIDE\n");
  return path;
}

function loader(repo: TestRepo, options: { path?: string; secretsDir?: string } = {}): RepoLoader {
  const source = new GitSource({ url: repo.url, cwd: repo.work, env: repo.env, timeoutMs: 20_000 });
  return new RepoLoader({
    source,
    path: options.path ?? "fleet/cubeform.yaml",
    env: repo.env,
    ...(options.secretsDir ? { secretsDir: options.secretsDir } : {}),
  });
}

async function problems(repoLoader: RepoLoader): Promise<string[]> {
  const error = await repoLoader.load().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(LoadError);
  expect(JSON.stringify(error)).not.toContain("TOP-SECRET");
  return (inCliWords(error) as LoadError).problems.map((p) => formatProblem(p));
}

test("a key file inside the checkout is read, also through a symlink that stays inside and a '..' that stays inside", async () => {
  const repo = testRepo();
  repo.symlink("fleet/linked.pub", "../keys/a.pub");
  repo.commit({
    "keys/a.pub": KEY,
    "fleet/cubeform.yaml": `${HEAD}cubes:\n  - name: a\n    sshPublicKeyFile: ../keys/a.pub\n  - name: b\n    sshPublicKeyFile: linked.pub\n`,
  });
  const loaded = await loader(repo).load();
  expect(loaded.desired.cubes.map((c) => c.sshPublicKey)).toEqual([KEY.trimEnd(), KEY.trimEnd()]);
});

test("an absolute path, a '..' escape and a symlink out of the checkout are each a FILE:LINE:COL error; nothing outside is read", async () => {
  const secret = outsideSecret();
  const repo = testRepo();
  repo.symlink("fleet/escape.txt", secret);
  repo.commit({
    "fleet/cubeform.yaml": `${HEAD}  sshPublicKey: ${KEY}cubes:
  - name: absolute
    userDataFile: ${secret}
  - name: dotdot
    userDataFile: ../../../../../../../..${secret}
  - name: symlink
    userDataFile: escape.txt
`,
  });
  const found = await problems(loader(repo));
  expect(found).toEqual([
    expect.stringMatching(
      /^fleet\/cubeform\.yaml:8:19: cubes\[0\]\.userDataFile: cannot read .*: an absolute path is refused in a fleet from a repository/,
    ),
    expect.stringMatching(
      /^fleet\/cubeform\.yaml:10:19: cubes\[1\]\.userDataFile: cannot read .*: the path leaves the repository checkout/,
    ),
    expect.stringMatching(
      /^fleet\/cubeform\.yaml:12:19: cubes\[2\]\.userDataFile: cannot read escape\.txt: the path is a symlink that leads outside the repository checkout/,
    ),
  ]);
});

test("the fleet file itself may not be a symlink out of the checkout", async () => {
  const secret = outsideSecret();
  const repo = testRepo();
  repo.symlink("fleet/cubeform.yaml", secret);
  repo.commit({});
  const error = await loader(repo)
    .load()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SourceError);
  expect((error as Error).message).toMatch(/fleet\/cubeform\.yaml is a symlink that leads outside the repository checkout/);
});

test("a webhook's secretFile is written under --secrets-dir; without it, or escaping it, the field is a located error", async () => {
  const repo = testRepo();
  const webhooks = (secretFile: string): string =>
    `${HEAD}  sshPublicKey: ${KEY}cubes: []\nwebhooks:\n  - url: https://hooks.example.com/cube\n    events: [cube.created]\n    secretFile: ${secretFile}\n`;
  repo.commit({ "fleet/cubeform.yaml": webhooks("hooks/cube.secret") });
  const secretsDir = mkdtempSync(join(tmpdir(), "cubeform-secrets-"));
  const loaded = await loader(repo, { secretsDir }).load();
  expect(loaded.desired.webhooks?.[0]?.secretPath).toBe(join(secretsDir, "hooks", "cube.secret"));

  expect(await problems(loader(repo))).toEqual([
    expect.stringMatching(
      /^fleet\/cubeform\.yaml:10:17: webhooks\[0\]\.secretFile: hooks\/cube\.secret: .*only under a secrets directory the operator names, and none is named \(--secrets-dir\)$/,
    ),
  ]);
  repo.commit({ "fleet/cubeform.yaml": webhooks("../../tmp/x") });
  expect(await problems(loader(repo, { secretsDir }))).toEqual([
    expect.stringMatching(
      /:10:17: webhooks\[0\]\.secretFile: \.\.\/\.\.\/tmp\/x: the secretFile leaves the secrets directory and is refused \(--secrets-dir\)$/,
    ),
  ]);
  repo.commit({ "fleet/cubeform.yaml": webhooks("/tmp/x") });
  expect(await problems(loader(repo, { secretsDir }))).toEqual([
    expect.stringMatching(/:10:17: webhooks\[0\]\.secretFile: \/tmp\/x: an absolute secretFile is refused/),
  ]);
});

test("--path must name a place inside the repository; the loader's own message names no flag, the CLI's does", () => {
  const repo = testRepo();
  expect(() => loader(repo, { path: "/etc" })).toThrow(/^the path "\/etc": name a file or directory inside the repository/);
  expect(() => loader(repo, { path: "../x" })).toThrow(/^the path "..\/x"/);
  const refused = (() => {
    try {
      loader(repo, { path: "/etc" });
    } catch (e) {
      return inCliWords(e) as Error;
    }
  })();
  expect(refused?.message).toMatch(/^--path "\/etc": name a file or directory inside the repository/);
});

test("issue 32 item 8: a --path through a directory symlink out of the checkout is refused naming only the path inside: not where it leads, nor what is there", async () => {
  const outside = mkdtempSync(join(tmpdir(), "cubeform-outside-"));
  mkdirSync(join(outside, "sub"));
  writeFileSync(join(outside, "prod-db-password.yaml"), "TOP-SECRET-OUTSIDE\n");
  writeFileSync(join(outside, "sub", "cubeform.yaml"), "TOP-SECRET-OUTSIDE\n");
  const repo = testRepo();
  repo.symlink("fleet", outside);
  const commit = repo.commit({ "cubeform.yaml": `${HEAD}sshPublicKey: x\ncubes: []\n` });
  const cases: [path: string, named: string][] = [
    ["fleet", "fleet"],
    ["fleet/sub", "fleet"],
    ["fleet/sub/cubeform.yaml", "fleet"],
    // A file that is not there is refused the same way: the message tells nothing of what the place outside holds.
    ["fleet/missing.yaml", "fleet"],
  ];
  for (const [path, named] of cases) {
    const error = await loader(repo, { path })
      .load()
      .catch((e: unknown) => e);
    expect(error, path).toBeInstanceOf(SourceError);
    expect((error as Error).message).toBe(
      `commit ${commit.slice(0, 12)}: ${named === path ? named : `${named} (of the path ${path})`} is a symlink that leads outside the repository checkout, and is refused`,
    );
    const message = inCliWords(error as Error).message;
    expect(message).toBe(
      `commit ${commit.slice(0, 12)}: ${named === path ? named : `${named} (of --path ${path})`} is a symlink that leads outside the repository checkout, and is refused`,
    );
    expect(message).not.toContain(outside);
    expect(message).not.toContain("prod-db-password");
  }
});
