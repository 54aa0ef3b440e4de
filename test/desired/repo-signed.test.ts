/**
 * Signed commits (issue 21 item 6): with an allowed-signers file, only a commit with an SSH
 * signature by one of its keys loads. Real keys (ssh-keygen), real signed commits, real
 * `git verify-commit`.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, test } from "vitest";
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
  const loader = new RepoLoader({ source: new GitSource({ url: repo.url, cwd: repo.work, env: repo.env, timeoutMs: 20_000, allowedSignersFile: signersFile }), path: "cubeform.yaml", env: repo.env });
  const refused = async (): Promise<SourceError> => {
    const error = await loader.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).code).toBe("untrusted_commit");
    return error as SourceError;
  };

  signWith(undefined);
  const unsigned = repo.commit({ "cubeform.yaml": fleet("web") });
  expect((await refused()).message).toBe(`commit ${unsigned.slice(0, 12)} is refused by --allowed-signers ${signersFile}: it is not signed; nothing is applied until a commit signed by an allowed key`);

  signWith(other.key);
  const foreign = repo.commit({ "cubeform.yaml": fleet("web", "db") });
  const message = (await refused()).message;
  expect(message).toContain(`commit ${foreign.slice(0, 12)} is refused by --allowed-signers ${signersFile}: it is not signed by a key in that file`);
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
