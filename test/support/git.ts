/**
 * Real git, no network: a bare repository made by the test in a temp directory, read through
 * file://, and a working clone that commits and pushes to it. Git runs with a temp HOME and
 * GIT_CONFIG_NOSYSTEM, so the user's configuration never leaks in.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { onTestFinished } from "vitest";

export interface TestRepo {
  /** file:// URL of the bare repository. */
  url: string;
  bare: string;
  work: string;
  /** The environment git (and a spawned cubeform) should run with. */
  env: Record<string, string>;
  /** Writes the files (null deletes one), commits and pushes to `branch` (default main); the new commit id. */
  commit(files: Record<string, string | null>, message?: string, branch?: string): string;
  symlink(path: string, target: string): void;
  git(...args: string[]): string;
}

export function testRepo(): TestRepo {
  const root = mkdtempSync(join(tmpdir(), "cubeform-git-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, "home");
  mkdirSync(home);
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(root, "cache"),
  };
  const bare = join(root, "remote.git");
  const work = join(root, "work");
  const run = (cwd: string, args: string[]): string =>
    execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  run(root, ["init", "--quiet", "--bare", "-b", "main", bare]);
  run(root, ["init", "--quiet", "-b", "main", work]);
  run(work, ["config", "user.name", "Test"]);
  run(work, ["config", "user.email", "test@example.com"]);
  run(work, ["remote", "add", "origin", bare]);
  const git = (...args: string[]): string => run(work, args);
  return {
    url: pathToFileURL(bare).href,
    bare,
    work,
    env,
    git,
    symlink(path, target) {
      const at = join(work, path);
      mkdirSync(dirname(at), { recursive: true });
      try {
        unlinkSync(at);
      } catch {}
      symlinkSync(target, at);
    },
    commit(files, message = "change", branch = "main") {
      for (const [path, text] of Object.entries(files)) {
        const at = join(work, path);
        if (text === null) rmSync(at, { recursive: true, force: true });
        else {
          mkdirSync(dirname(at), { recursive: true });
          writeFileSync(at, text);
        }
      }
      git("add", "-A");
      git("commit", "--quiet", "--allow-empty", "-m", message);
      git("push", "--quiet", "--force", "origin", `HEAD:refs/heads/${branch}`);
      return git("rev-parse", "HEAD").trim();
    },
  };
}

/** An ed25519 key pair made by ssh-keygen in `dir`: the private key's path and the public key's line. */
export function sshKeyPair(dir: string, name: string): { key: string; pub: string } {
  const key = join(dir, name);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key]);
  return { key, pub: readFileSync(`${key}.pub`, "utf8").trim() };
}
