/**
 * Signed commits (issue 21 item 6): with an allowed-signers file, only a commit with an SSH
 * signature by one of its keys loads. Real keys (ssh-keygen), real signed commits, real
 * `git verify-commit`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { SourceError } from "../../desired/errors.js";
import { GitSource } from "../../desired/git-source.js";
import { RepoLoader } from "../../desired/repo-load.js";
import { sshKeyPair, testRepo } from "../support/git.js";

const fleet = (...names: string[]): string =>
  `apiVersion: cubeform/v1\ndefaults:\n  image: ubuntu-24.04\n  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n  sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGUyZS10ZXN0LWtleS1mb3ItY3ViZWZvcm0tY2xp t@example\ncubes:\n${names.map((n) => `  - name: ${n}\n`).join("")}`;

test("issue 21 item 6: with --allowed-signers, an unsigned commit or one signed by another key is refused by name; a commit signed by an allowed key loads", async () => {
  const repo = testRepo();
  const allowed = sshKeyPair(dirname(repo.work), "allowed-key");
  const other = sshKeyPair(dirname(repo.work), "other-key");
  const signersFile = join(dirname(repo.work), "allowed_signers");
  writeFileSync(signersFile, `fleet@example.com ${allowed.pub}\n`);
  const signWith = (key: string | undefined): void => {
    repo.git("config", "gpg.format", "ssh");
    repo.git("config", "commit.gpgsign", String(key !== undefined));
    if (key !== undefined) repo.git("config", "user.signingkey", key);
  };
  const loader = new RepoLoader({
    source: new GitSource({ url: repo.url, cwd: repo.work, env: repo.env, timeoutMs: 20_000, allowedSignersFile: signersFile }),
    path: "cubeform.yaml",
    env: repo.env,
  });
  const refused = async (): Promise<SourceError> => {
    const error = await loader.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).code).toBe("untrusted_commit");
    return error as SourceError;
  };

  signWith(undefined);
  const unsigned = repo.commit({ "cubeform.yaml": fleet("web") });
  expect((await refused()).message).toBe(
    `commit ${unsigned.slice(0, 12)} is refused by the allowed signers of ${signersFile}: it is not signed; nothing is applied until a commit signed by an allowed key`,
  );

  signWith(other.key);
  const foreign = repo.commit({ "cubeform.yaml": fleet("web", "db") });
  const message = (await refused()).message;
  expect(message).toContain(
    `commit ${foreign.slice(0, 12)} is refused by the allowed signers of ${signersFile}: it is not signed by a key in that file`,
  );
  expect(message).toContain("No principal matched");
  // Asked again on the same commit: the same answer, without another verify-commit.
  expect((await refused()).message).toBe(message);

  signWith(allowed.key);
  const signed = repo.commit({ "cubeform.yaml": fleet("web", "db", "cache") });
  const loaded = await loader.load();
  expect(loaded.revision.revision).toBe(signed);
  expect(loaded.desired.cubes.map((c) => c.name)).toEqual(["web", "db", "cache"]);

  // The setting reached git through -c only: the shared clone's config does not name the file.
  const clones = join(repo.env.XDG_CACHE_HOME as string, "cubeform", "git");
  const clone = readdirSync(clones).find((name) => !name.endsWith(".lock")) as string;
  expect(readFileSync(join(clones, clone, ".git", "config"), "utf8")).not.toMatch(/allowedSigners|gpg/i);
});

/** An OpenPGP key made by gpg in a temp GNUPGHOME (no passphrase): the operator's keyring holds it. */
function gpgKeyring(dir: string, env: Record<string, string>): { env: Record<string, string>; fingerprint: string } {
  const home = mkdtempSync(join(dir, "gnupg-"));
  chmodSync(home, 0o700);
  const gpgEnv = { ...env, GNUPGHOME: home };
  onTestFinished(() => void spawnSync("gpgconf", ["--kill", "all"], { env: gpgEnv }));
  execFileSync(
    "gpg",
    ["--batch", "--quiet", "--passphrase", "", "--quick-gen-key", "Fleet Signer <signer@example.com>", "ed25519", "sign", "never"],
    { env: gpgEnv, stdio: "ignore" },
  );
  const listing = execFileSync("gpg", ["--batch", "--with-colons", "--list-secret-keys"], {
    env: gpgEnv,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const fingerprint = /^fpr:+([0-9A-F]+):/m.exec(listing)?.[1] as string;
  return { env: gpgEnv, fingerprint };
}

test("issue 32 item 1: with --allowed-signers, a commit with a good OpenPGP signature from the operator's keyring is refused as not SSH; nothing of it is checked out", async () => {
  const repo = testRepo();
  const { env, fingerprint } = gpgKeyring(dirname(repo.work), repo.env);
  const unrelated = sshKeyPair(dirname(repo.work), "unrelated-key");
  const signersFile = join(dirname(repo.work), "allowed_signers");
  writeFileSync(signersFile, `fleet@example.com ${unrelated.pub}\n`);
  const sign = (args: string[]): string => execFileSync("git", args, { cwd: repo.work, env, encoding: "utf8" });
  sign(["config", "gpg.format", "openpgp"]);
  sign(["config", "user.signingkey", fingerprint]);
  sign(["config", "commit.gpgsign", "true"]);
  writeFileSync(join(repo.work, "cubeform.yaml"), fleet("web"));
  sign(["add", "-A"]);
  sign(["commit", "--quiet", "-m", "signed with OpenPGP"]);
  sign(["push", "--quiet", "origin", "HEAD:refs/heads/main"]);
  const commit = sign(["rev-parse", "HEAD"]).trim();
  // The signature is good by the operator's keyring: git itself would accept it.
  const byGit = spawnSync("git", ["verify-commit", "--raw", commit], { cwd: repo.work, env, encoding: "utf8" });
  expect(byGit.status, byGit.stderr).toBe(0);
  expect(byGit.stderr).toContain("GOODSIG");

  // cubeform runs with the same GNUPGHOME in its environment.
  const loader = new RepoLoader({
    source: new GitSource({ url: repo.url, cwd: repo.work, env, timeoutMs: 20_000, allowedSignersFile: signersFile }),
    path: "cubeform.yaml",
    env,
  });
  const error = await loader.load().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SourceError);
  expect((error as SourceError).code).toBe("untrusted_commit");
  expect((error as Error).message).toBe(
    `commit ${commit.slice(0, 12)} is refused by the allowed signers of ${signersFile}: it is signed with OpenPGP, and only an SSH signature by a key in that file is accepted; nothing is applied until a commit signed by an allowed key`,
  );
  expect(loader.lastCommit).toBe(commit);
  // Verified before checkout (issue 32 item 7): the refused commit's files were never written.
  const clones = join(repo.env.XDG_CACHE_HOME as string, "cubeform", "git");
  const clone = readdirSync(clones).find((name) => !name.endsWith(".lock")) as string;
  expect(existsSync(join(clones, clone, "cubeform.yaml"))).toBe(false);
});

test("issue 32 item 7: a force-push back to an older commit is followed only when that commit is signed by a key still in the allowed-signers file", async () => {
  const repo = testRepo();
  const retired = sshKeyPair(dirname(repo.work), "retired-key");
  const current = sshKeyPair(dirname(repo.work), "current-key");
  const signersFile = join(dirname(repo.work), "allowed_signers");
  writeFileSync(signersFile, `fleet@example.com ${retired.pub}\nfleet@example.com ${current.pub}\n`);
  repo.git("config", "gpg.format", "ssh");
  repo.git("config", "commit.gpgsign", "true");
  const signedBy = (key: string, ...names: string[]): string => {
    repo.git("config", "user.signingkey", key);
    return repo.commit({ "cubeform.yaml": fleet(...names) });
  };
  const old = signedBy(retired.key, "web");
  const older = signedBy(current.key, "web", "db");
  const head = signedBy(current.key, "web", "db", "cache");
  const loader = new RepoLoader({
    source: new GitSource({ url: repo.url, cwd: repo.work, env: repo.env, timeoutMs: 20_000, allowedSignersFile: signersFile }),
    path: "cubeform.yaml",
    env: repo.env,
  });
  expect((await loader.load()).revision.revision).toBe(head);
  // The retired key leaves the file; someone force-pushes the branch back to the commit it signed.
  writeFileSync(signersFile, `fleet@example.com ${current.pub}\n`);
  repo.git("push", "--quiet", "--force", "origin", `${old}:refs/heads/main`);
  const error = await loader.load().catch((e: unknown) => e);
  expect((error as SourceError).code).toBe("untrusted_commit");
  expect((error as Error).message).toContain(
    `commit ${old.slice(0, 12)} is refused by the allowed signers of ${signersFile}: it is not signed by a key in that file`,
  );
  // Back to an older commit signed by a key still allowed: followed.
  repo.git("push", "--quiet", "--force", "origin", `${older}:refs/heads/main`);
  const loaded = await loader.load();
  expect(loaded.revision.revision).toBe(older);
  expect(loaded.desired.cubes.map((c) => c.name)).toEqual(["web", "db"]);
});
