/** Issue 31 item 20: papercuts of the day-2 commands and of `version` a new user hits. */
import { expect } from "vitest";
import { SSH_KEY } from "./support/cli.js";
import { FAST, test } from "./support/fixtures.js";

test("a mistyped cube name in a day-2 command names the closest live cube, and sends nothing", async ({ fx }) => {
  await fx.api.createCube(
    { name: "small", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "small" },
  );
  const before = fx.mutations();
  for (const argv of [
    ["cube", "ssh", "smal"],
    ["cube", "show", "smal"],
    ["cube", "restart", "smal"],
  ]) {
    const run = await fx.cli([...argv, ...FAST], { env: { XDG_CONFIG_HOME: fx.cwd } });
    expect(run.exitCode, argv.join(" ")).toBe(1);
    expect(run.stderr).toBe('Error: no cube named (or with id) "smal" in this space (did you mean "small"?)\n');
  }
  // Nothing close: no guess.
  expect((await fx.cli(["cube", "show", "database", ...FAST])).stderr).toBe('Error: no cube named (or with id) "database" in this space\n');
  expect(fx.mutations()).toBe(before);
});

test("version -o json and -o yaml, for scripts; text stays the bare version", async ({ fx }) => {
  const text = await fx.cli(["version"]);
  expect(text.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  const json = await fx.cli(["version", "-o", "json"]);
  expect(json.exitCode).toBe(0);
  expect(JSON.parse(json.stdout)).toEqual({ version: text.stdout.trim(), node: process.versions.node });
  const yaml = await fx.cli(["version", "--format", "yaml"]);
  expect(yaml.stdout).toBe(`version: ${text.stdout.trim()}\nnode: ${process.versions.node}\n`);
  const bad = await fx.cli(["version", "-o", "xml"]);
  expect(bad.exitCode).toBe(1);
});

test("day-2 JSON says whether anything changed: a repeated power-off or protect is changed: false", async ({ fx }) => {
  await fx.api.createCube(
    { name: "small", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "small" },
  );
  const json = async (argv: string[]) => {
    const run = await fx.cli([...argv, ...FAST, "-o", "json"]);
    expect(run.exitCode, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as { changed: boolean };
  };
  expect((await json(["cube", "protect", "small"])).changed).toBe(true);
  expect((await json(["cube", "protect", "small"])).changed).toBe(false);
  expect((await json(["cube", "power-off", "small", "--yes", "--wait", "--interval", "0.05"])).changed).toBe(true);
  expect((await json(["cube", "power-off", "small", "--yes"])).changed).toBe(false);
});

test("snapshot delete --ignore-not-found: no such snapshot (or cube) is success, said, with nothing sent", async ({ fx }) => {
  await fx.api.createCube(
    { name: "small", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "small" },
  );
  const before = fx.mutations();
  const plain = await fx.cli(["snapshot", "delete", "small", "gone", "--yes", ...FAST]);
  expect(plain.exitCode).toBe(1);
  const ignored = await fx.cli(["snapshot", "delete", "small", "gone", "--yes", "--ignore-not-found", ...FAST]);
  expect(ignored.exitCode, ignored.stderr).toBe(0);
  expect(ignored.stdout).toBe('No snapshot "gone" of cube "small": nothing to delete.\n');
  const json = await fx.cli(["snapshot", "delete", "nocube", "gone", "--yes", "--ignore-not-found", "-o", "json", ...FAST]);
  expect(json.exitCode).toBe(0);
  expect(JSON.parse(json.stdout)).toEqual({ cube: "nocube", snapshot: "gone", result: "not-found", changed: false });
  expect(fx.mutations()).toBe(before);
});
