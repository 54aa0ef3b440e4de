/**
 * The Fleet reads several files (or a directory) as `cubeform -f a.yaml -f b.yaml` does, through the loader's front door; its
 * errors name the Fleet's own argument, never a CLI flag. Under `pulumi.runtime.setMocks`, in a process of its own (the built
 * provider, as examples.mocks.test.ts runs it).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { REPO_ROOT } from "./harness.js";

const run = promisify(execFile);
const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG0 me@host";
const fleetFile = (cube: string, image: string): string =>
  `apiVersion: cubeform/v1\ndefaults:\n  image: ${image}\n  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }\n  sshPublicKey: ${SSH_KEY}\ncubes:\n  - name: ${cube}\n`;

async function runProgram(
  files: Record<string, string>,
  fileArgument: string,
): Promise<{ registered: { type: string; name: string; inputs: Record<string, unknown> }[] }> {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-fleet-files-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  writeFileSync(
    join(dir, "index.ts"),
    `import { Fleet } from ${JSON.stringify(join(REPO_ROOT, "dist/provider/index.js"))};\nnew Fleet("f", { file: ${fileArgument} });\n`,
  );
  const { stdout } = await run(
    process.execPath,
    [
      "--import",
      pathToFileURL(join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href,
      join(REPO_ROOT, "test/provider/support/mocks-runner.ts"),
      join(dir, "index.ts"),
    ],
    {
      cwd: dir,
      env: {
        ...process.env,
        PULUMI_NODEJS_PROJECT: "fleet-files",
        PULUMI_CONFIG: JSON.stringify({ "cubeform:apiKey": "kro_mocks_key_0123456789" }),
      },
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout) as { registered: { type: string; name: string; inputs: Record<string, unknown> }[] };
}

it("a Fleet of two files declares the cubes of both, each with its own file's defaults", { timeout: 120_000 }, async () => {
  const { registered } = await runProgram(
    { "web.yaml": fleetFile("web", "ubuntu-24.04"), "db.yaml": fleetFile("db", "debian-13") },
    `["web.yaml", "db.yaml"]`,
  );
  const cubes = registered.filter((r) => r.type.endsWith(":Cube"));
  expect(cubes.map((c) => [c.name, c.inputs.image]).sort()).toEqual([
    ["f-db", "debian-13"],
    ["f-web", "ubuntu-24.04"],
  ]);
});

it("a missing file is named with the Fleet's argument, not a CLI flag", { timeout: 120_000 }, async () => {
  const failed = await runProgram({ "web.yaml": fleetFile("web", "ubuntu-24.04") }, `["web.yaml", "nope.yaml"]`).then(
    () => "",
    (e: { stderr?: string; stdout?: string }) => `${e.stderr ?? ""}${e.stdout ?? ""}`,
  );
  expect(failed).toContain("cannot read nope.yaml: no such file (use the Fleet's file argument to name the desired-state file)");
  expect(failed).not.toContain("-f/--file");
});
