/**
 * The files the --repo flags hand to git (--allowed-signers, --ssh-key, --ssh-known-hosts) are checked when the command
 * starts: a missing allowed-signers file used to read as "it is not signed", and a missing key as a refused host, rounds later.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { testRepo } from "../support/git.js";
import { describeRun, plainFleet, startBin, tempDir } from "./support.js";

test("a missing, special or oversized file given to --allowed-signers, --ssh-key or --ssh-known-hosts is named at once; nothing is fetched", {
  timeout: 60_000,
}, async () => {
  const repo = testRepo();
  const commit = repo.commit({ "cubeform.yaml": plainFleet("web") });
  const cwd = tempDir();
  mkdirSync(join(cwd, "keys"));
  writeFileSync(join(cwd, "huge_signers"), "x".repeat(2 * 1024 * 1024));
  const validate = (extra: string[]) => startBin(["validate", "--repo", repo.url, ...extra], { cwd, env: repo.env }).exited;

  const cases: [string[], string][] = [
    [["--allowed-signers", "missing_signers"], "--allowed-signers missing_signers: no such file"],
    [["--allowed-signers", "/dev/zero"], "--allowed-signers /dev/zero: not a regular file (a character device)"],
    [["--allowed-signers", "huge_signers"], "--allowed-signers huge_signers: it is 2 MB, over the 1 MB limit for an allowed-signers file"],
    [["--ssh-key", "missing_key"], "--ssh-key missing_key: no such file"],
    [["--ssh-known-hosts", "keys"], "--ssh-known-hosts keys: not a regular file (a directory)"],
  ];
  for (const [flags, message] of cases) {
    const run = await validate(flags);
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr.trim()).toBe(`Error: ${message}`);
  }
  const clones = join(repo.env.XDG_CACHE_HOME as string, "cubeform", "git");
  expect(existsSync(clones)).toBe(false);
  // The same flags with files that are there: the check lets them through to git.
  writeFileSync(join(cwd, "known_hosts"), "");
  const fine = await validate(["--ssh-known-hosts", "known_hosts"]);
  expect(fine.code, describeRun(fine)).toBe(0);
  expect(fine.stdout).toContain(`at commit ${commit}`);
  expect(existsSync(clones)).toBe(true);
});
