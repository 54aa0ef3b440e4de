/**
 * Issue 31 item 15: `-o` is `--format` on every command; the file a command writes is `-O`
 * (`backup download --out`, `import --output`). `backup download NAME -o json` wrote a file
 * named `json`.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { waitFor } from "../support/wait.js";
import { FAST, test, type CliFixture } from "./support/fixtures.js";
import { SSH_KEY } from "./support/cli.js";

async function cubeWithBackup(fx: CliFixture, sizeBytes: number) {
  const web = await fx.api.createCube(
    { name: "web", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
    { idempotencyKey: "create-web" },
  );
  await waitFor(async () => ((await fx.api.getCube(web.id)).state === "running" ? true : undefined), { timeoutMs: 15_000 });
  return fx.emulator.admin.createBackup({ cubeId: web.id, name: "nightly", sizeBytes });
}

describe("-o is the output format everywhere", () => {
  test("backup download NAME -o json --out FILE: JSON on stdout, the archive at FILE, no file named json", async ({ fx }) => {
    const backup = await cubeWithBackup(fx, 70_000);
    const run = await fx.cli(["backup", "download", "nightly", "-o", "json", "--out", "copy.cube", ...FAST]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ backupId: backup.id, file: join(fx.cwd, "copy.cube"), bytes: 70_000 });
    expect(statSync(join(fx.cwd, "copy.cube")).size).toBe(70_000);
    expect(existsSync(join(fx.cwd, "json"))).toBe(false);

    const short = await fx.cli(["backup", "download", "nightly", "-O", "again.cube", "-o", "json", ...FAST]);
    expect(short.exitCode, short.stderr).toBe(0);
    expect(JSON.parse(short.stdout)).toMatchObject({ file: join(fx.cwd, "again.cube"), bytes: 70_000 });
  });

  test("backup download NAME -o FILE is refused as a format, writing nothing", async ({ fx }) => {
    await cubeWithBackup(fx, 70_000);
    const run = await fx.cli(["backup", "download", "nightly", "-o", "copy.cube", ...FAST]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/'copy\.cube' is invalid\. Allowed choices are text, json/);
    expect(existsSync(join(fx.cwd, "copy.cube"))).toBe(false);
  });

  test("import -o pulumi prints the program; -O FILE writes the file; -o FILE says where the file goes", async ({ fx }) => {
    await fx.api.createCube(
      { name: "web", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY },
      { idempotencyKey: "create-web" },
    );
    const program = await fx.cli(["import", "-o", "pulumi", ...FAST]);
    expect(program.exitCode, program.stderr).toBe(0);
    expect(program.stdout).toContain("@pulumi/pulumi");
    expect(existsSync(join(fx.cwd, "pulumi"))).toBe(false);

    const written = await fx.cli(["import", "-O", "imported.yaml", ...FAST]);
    expect(written.exitCode, written.stderr).toBe(0);
    expect(readFileSync(join(fx.cwd, "imported.yaml"), "utf8")).toMatch(/^ {2}- name: web$/m);

    const old = await fx.cli(["import", "-o", "fleet.yaml", ...FAST]);
    expect(old.exitCode).toBe(1);
    expect(old.stderr).toContain("--format (-o) must be yaml or pulumi; the file to write is -O/--output FILE");
    expect(existsSync(join(fx.cwd, "fleet.yaml"))).toBe(false);
  });
});
