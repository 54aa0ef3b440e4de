/**
 * Issue 31 item 20: `-o yaml` wherever `-o json` is offered (the same document, as YAML), and a `changed` field in the JSON of the day-2
 * commands that change something (snapshot take, backup download and share, upload).
 */
import { parse } from "yaml";
import { describe, expect } from "vitest";
import { runningCube } from "./support/cubes.js";
import { FAST, test } from "./support/fixtures.js";

describe("-o yaml", () => {
  test("cube list, cube show and snapshot list: the JSON document as YAML", { timeout: 60_000 }, async ({ fx }) => {
    await runningCube(fx, "web");
    for (const argv of [
      ["cube", "list"],
      ["cube", "show", "web"],
      ["snapshot", "list", "web"],
    ]) {
      const json = await fx.cli([...argv, "-o", "json", ...FAST]);
      const yaml = await fx.cli([...argv, "-o", "yaml", ...FAST]);
      expect(yaml.exitCode, yaml.stderr).toBe(0);
      expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    }
    expect((await fx.cli(["cube", "list", "-o", "yaml", ...FAST])).stdout).toMatch(/^- id: cube_\w+\n {2}name: web\n/);
    const long = await fx.cli(["cube", "list", "--format=yaml", ...FAST]);
    expect((parse(long.stdout) as { name: string }[]).map((c) => c.name)).toEqual(["web"]);
  });

  test("plan -o yaml keeps plan's exit code (2: changes) and is the plan's JSON as YAML", { timeout: 60_000 }, async ({ fx }) => {
    const json = await fx.cli(["plan", "-o", "json", ...FAST]);
    const yaml = await fx.cli(["plan", "-o", "yaml", ...FAST]);
    expect(yaml.exitCode, yaml.stderr).toBe(2);
    const { createdAt: _a, ...fromYaml } = parse(yaml.stdout) as Record<string, unknown>;
    const { createdAt: _b, ...fromJson } = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(fromYaml).toEqual(fromJson);
  });

  test("the help of every command that offers json lists yaml; a bad value names both", { timeout: 60_000 }, async ({ fx }) => {
    for (const argv of [
      ["plan"],
      ["drift"],
      ["apply"],
      ["cube", "list"],
      ["snapshot", "take"],
      ["backup", "download"],
      ["dns"],
      ["show"],
    ]) {
      const help = await fx.cli([...argv, "--help"]);
      expect(help.stdout, argv.join(" ")).toMatch(/choices: .*"json".*"yaml"/s);
    }
    const bad = await fx.cli(["cube", "list", "-o", "xml", ...FAST]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/Allowed choices are text, wide, json, yaml/);
  });

  test("a command's error under -o yaml is its error on stderr, exit 1, nothing on stdout", { timeout: 60_000 }, async ({ fx }) => {
    const run = await fx.cli(["cube", "show", "nope", "-o", "yaml", ...FAST]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/nope/);
  });
});

describe("changed in day-2 JSON", () => {
  test("snapshot take -o json says changed: true; -o yaml too", { timeout: 60_000 }, async ({ fx }) => {
    await runningCube(fx, "db");
    const json = await fx.cli(["snapshot", "take", "db", "--name", "s1", "-o", "json", ...FAST]);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: "s1", changed: true });
    const yaml = await fx.cli(["snapshot", "take", "db", "--name", "s2", "-o", "yaml", ...FAST]);
    expect(parse(yaml.stdout)).toMatchObject({ name: "s2", changed: true });
  });

  test("backup download -o json says changed: true", { timeout: 60_000 }, async ({ fx }) => {
    const web = await runningCube(fx, "web");
    fx.emulator.admin.createBackup({ cubeId: web.id, name: "nightly", sizeBytes: 1000 });
    const run = await fx.cli(["backup", "download", "nightly", "-o", "json", "-O", "copy.cube", ...FAST]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ bytes: 1000, changed: true });
  });
});
