/**
 * An ssh repository (issue 21 item 2): a local sshd on 127.0.0.1 with its own host key and the
 * client's key authorized, read with --ssh-key and --ssh-known-hosts. The host key is checked: a
 * known_hosts naming another key fails with ssh's words. Skipped, saying so, without an sshd
 * (Debian: apt-get install openssh-server).
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { sshKeyPair, testRepo } from "../support/git.js";
import { freePort } from "../support/ports.js";
import { describeRun, plainFleet, startBin, tempDir, waitFor } from "./support.js";

const SSHD = ["/usr/sbin/sshd", "/usr/bin/sshd"].find((path) => existsSync(path));

/** sshd in the foreground on 127.0.0.1:port, logging to stderr; stopped after the test. */
async function startSshd(dir: string, port: number, hostKey: string, authorizedKey: string): Promise<void> {
  const config = join(dir, "sshd_config");
  writeFileSync(join(dir, "authorized_keys"), `${authorizedKey}\n`);
  writeFileSync(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      "StrictModes no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "PidFile none",
      "",
    ].join("\n"),
  );
  const argv = [SSHD as string, "-D", "-e", "-f", config];
  // As root, sshd wants its privilege-separation directory, which only its init script makes:
  // made in a mount namespace of its own (a tmpfs on /run), the machine's /run is not touched.
  const needsRunDir = process.getuid?.() === 0 && !existsSync("/run/sshd");
  const child = needsRunDir
    ? spawn("unshare", ["-m", "sh", "-c", 'mount -t tmpfs tmpfs /run && mkdir -m 755 /run/sshd && exec "$0" "$@"', ...argv])
    : spawn(argv[0] as string, argv.slice(1));
  let log = "";
  child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise((resolve) => child.on("close", resolve));
  onTestFinished(async () => {
    child.kill("SIGTERM");
    await exited;
  });
  await waitFor(() => log.includes(`Server listening on 127.0.0.1 port ${port}`), {
    timeoutMs: 10_000,
    message: `sshd listening (its log: ${log})`,
  });
}

test("issue 21 item 2: an ssh repository is read with --ssh-key and --ssh-known-hosts; a known_hosts with another host key fails, naming it", {
  timeout: 60_000,
}, async ({ skip }) => {
  skip(SSHD === undefined, "no sshd on this machine: the ssh path is not shown (Debian: apt-get install openssh-server)");
  const repo = testRepo();
  const commit = repo.commit({ "cubeform.yaml": plainFleet("web") });
  const dir = tempDir();
  const [host, client, stranger] = ["host", "client", "stranger"].map((name) => sshKeyPair(dir, name)) as [
    ReturnType<typeof sshKeyPair>,
    ReturnType<typeof sshKeyPair>,
    ReturnType<typeof sshKeyPair>,
  ];
  const port = await freePort();
  await startSshd(dir, port, host.key, client.pub);
  const url = `ssh://${userInfo().username}@127.0.0.1:${port}${repo.bare}`;
  const validate = (knownHost: string) => {
    writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${knownHost}\n`);
    return startBin(["validate", "--repo", url, "--ssh-key", client.key, "--ssh-known-hosts", join(dir, "known_hosts")], {
      cwd: dir,
      env: repo.env,
    }).exited;
  };

  const ok = await validate(host.pub);
  expect(ok.code, describeRun(ok)).toBe(0);
  expect(ok.stdout).toBe(`ok: 1 cube (cubeform.yaml at commit ${commit} of ${url})\n`);

  const spoofed = await validate(stranger.pub);
  expect(spoofed.code, describeRun(spoofed)).toBe(1);
  expect(spoofed.stderr).toContain(`git fetch of ${url} (HEAD (the remote's default branch)) failed`);
  expect(spoofed.stderr).toContain("Host key verification failed.");
});
