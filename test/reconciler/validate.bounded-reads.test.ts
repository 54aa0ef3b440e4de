/**
 * Issue 20 item 4: a file cubeform is pointed at is read only when it is a regular file within
 * a bound that fits what it is. A device, a pipe, an oversized file, a broken or looping link:
 * exit 1 with the place that named it, at once (the wall-time bounds are loose: they catch a
 * hang or a read of /dev/zero, they do not time the code). Run through the built bin, with a
 * timeout, so a regression hangs or fills memory in a child, not in the test runner.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { testCacheHome } from "../support/cache-home.js";
import { SSH_KEY, tempProject } from "./support/cli.js";

const BIN = fileURLToPath(new URL("../../bin/cubeform.js", import.meta.url));
const HANG = 10_000;

const fleet = (cube: string) => `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
cubes:
  - name: web
${cube}`;

interface Run {
  status: number | null;
  stderr: string;
  seconds: number;
}

function validate(cwd: string, args: string[], stdin: "ignore" | number = "ignore"): Run {
  return cubeform(cwd, ["validate", ...args], testCacheHome(), stdin);
}

function cubeform(cwd: string, args: string[], env: Record<string, string>, stdin: "ignore" | number = "ignore"): Run {
  const started = performance.now();
  const run: SpawnSyncReturns<string> = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env,
    stdio: [stdin, "pipe", "pipe"],
    timeout: HANG,
    killSignal: "SIGKILL",
  });
  const seconds = (performance.now() - started) / 1000;
  return { status: run.status, stderr: run.stderr, seconds };
}

function expectRefused(run: Run): void {
  expect(run.status, run.stderr).toBe(1);
  expect(run.seconds).toBeLessThan(HANG / 1000);
  expect(run.stderr).not.toContain("unexpected failure");
}

test("sshPublicKeyFile: /dev/zero is refused at the key, unread", () => {
  const cwd = tempProject({ "cubeform.yaml": fleet("    sshPublicKeyFile: /dev/zero\n") });
  const run = validate(cwd, []);
  expectRefused(run);
  expect(run.stderr).toBe(
    "cubeform.yaml:7:23: cubes[0].sshPublicKeyFile: cannot read /dev/zero: not a regular file (a character device)\n" +
      "Error: cubeform.yaml is not valid (1 problem); nothing was sent to the API\n",
  );
});

test("userDataFile: /dev/urandom is refused at the key, and so is a userData file over the API's 16 KB", () => {
  const cwd = tempProject({ "cubeform.yaml": fleet(`    sshPublicKey: ${SSH_KEY}\n    userDataFile: /dev/urandom\n`) });
  const urandom = validate(cwd, []);
  expectRefused(urandom);
  expect(urandom.stderr).toMatch(
    /^cubeform\.yaml:8:19: cubes\[0\]\.userDataFile: cannot read \/dev\/urandom: not a regular file \(a character device\)$/m,
  );

  writeFileSync(join(cwd, "cubeform.yaml"), fleet(`    sshPublicKey: ${SSH_KEY}\n    userDataFile: init.sh\n`));
  writeFileSync(join(cwd, "init.sh"), `#!/bin/sh\n${"#".repeat(20 * 1024 - 11)}\n`);
  const big = validate(cwd, []);
  expectRefused(big);
  expect(big.stderr).toMatch(
    /^cubeform\.yaml:8:19: cubes\[0\]\.userDataFile: cannot read init\.sh: it is 20 KB, over the 16 KB limit for userData \(the API's cap\)$/m,
  );
});

test("-f a link to /dev/zero, and -f a named pipe nobody writes to: refused at once", () => {
  const cwd = tempProject();
  symlinkSync("/dev/zero", join(cwd, "zero.yaml"));
  execFileSync("mkfifo", [join(cwd, "pipe.yaml")]);
  const zero = validate(cwd, ["-f", "zero.yaml"]);
  expectRefused(zero);
  expect(zero.stderr).toBe("Error: cannot read zero.yaml: not a regular file (a character device)\n");
  const pipe = validate(cwd, ["-f", "pipe.yaml"]);
  expectRefused(pipe);
  expect(pipe.stderr).toBe("Error: cannot read pipe.yaml: not a regular file (a named pipe)\n");
});

test("-f - reads standard input only up to the fleet bound (/dev/zero piped in)", () => {
  const cwd = tempProject();
  const zero = openSync("/dev/zero", "r");
  try {
    const run = validate(cwd, ["-f", "-"], zero);
    expectRefused(run);
    expect(run.stderr).toBe("Error: -f -: standard input is over the 64 MB limit for a desired-state file; nothing was read past it\n");
  } finally {
    closeSync(zero);
  }
});

test("a dangling and a looping symlink in a -f directory: each named, beside the good file", () => {
  const cwd = tempProject();
  mkdirSync(join(cwd, "fleet.d"));
  writeFileSync(join(cwd, "fleet.d", "a-web.yaml"), fleet(`    sshPublicKey: ${SSH_KEY}\n`));
  symlinkSync("gone.yaml", join(cwd, "fleet.d", "b-dangling.yaml"));
  symlinkSync("c-loop.yaml", join(cwd, "fleet.d", "c-loop.yaml"));
  const run = validate(cwd, ["-f", "fleet.d"]);
  expectRefused(run);
  expect(run.stderr).toBe(
    "fleet.d/b-dangling.yaml: cannot read: a symlink to gone.yaml, which does not exist\n" +
      "fleet.d/c-loop.yaml: cannot read: a symlink that loops (too many levels of symbolic links)\n" +
      "Error: fleet.d/b-dangling.yaml, fleet.d/c-loop.yaml are not valid (2 problems); nothing was sent to the API\n",
  );
});

test("a saved plan that is a link to /dev/zero is refused before anything connects", () => {
  const cwd = tempProject();
  symlinkSync("/dev/zero", join(cwd, "plan.json"));
  const run = cubeform(cwd, ["apply", "plan.json"], testCacheHome());
  expectRefused(run);
  expect(run.stderr).toBe("Error: cannot read the plan file plan.json: not a regular file (a character device)\n");
});

test("the krova CLI config as a link to /dev/zero is refused as what it is", () => {
  const cwd = tempProject({ "cubeform.yaml": fleet(`    sshPublicKey: ${SSH_KEY}\n`) });
  mkdirSync(join(cwd, "config", "krova"), { recursive: true });
  const config = join(cwd, "config", "krova", "config.json");
  symlinkSync("/dev/zero", config);
  const run = cubeform(cwd, ["plan"], { ...testCacheHome(), XDG_CONFIG_HOME: join(cwd, "config") });
  expectRefused(run);
  expect(run.stderr).toBe(
    `Error: cannot read ${config}: not a regular file (a character device); fix it or run \`cubeform login\` again\n`,
  );
});

test("code-cache entries replaced by links to /dev/zero are ignored: the run is as without a cache", () => {
  const cwd = tempProject({ "cubeform.yaml": fleet(`    sshPublicKey: ${SSH_KEY}\n`) });
  const env = { XDG_CACHE_HOME: join(cwd, "cache") };
  expect(cubeform(cwd, ["validate"], env).status).toBe(0);
  const cacheDirs = join(cwd, "cache", "cubeform", "code-cache");
  const [bundle] = readdirSync(cacheDirs);
  const entries = readdirSync(join(cacheDirs, String(bundle)));
  expect(entries.length).toBeGreaterThan(0);
  for (const entry of entries) {
    rmSync(join(cacheDirs, String(bundle), entry));
    symlinkSync("/dev/zero", join(cacheDirs, String(bundle), entry));
  }
  const run = cubeform(cwd, ["validate"], env);
  expect(run.status, run.stderr).toBe(0);
  expect(run.seconds).toBeLessThan(HANG / 1000);
});
