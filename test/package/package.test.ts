/**
 * The package as a user installs it: what `npm pack` puts in the tarball (every export, the bin,
 * the schema the README points at; no tests or sources), and the README's client example run
 * as written, importing "cubeform" by name from a project that has it in node_modules.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, test } from "vitest";
import { startEmulator } from "../../emulator/index.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  bin: Record<string, string>;
  exports: Record<string, string>;
};
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const temp = mkdtempSync(join(tmpdir(), "cubeform-package-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

test("npm pack ships the bin, every export with its types, the schema the README names, and no tests or sources", async () => {
  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" });
  const files = new Set((JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path));
  for (const bin of Object.values(pkg.bin)) expect(files).toContain(bin);
  // The bin is CommonJS (bin/package.json) and runs the bundle through its loader.
  expect(files).toContain("bin/package.json");
  expect(files).toContain("bin/bundle-loader.js");
  // The bin runs the bundled CLI (build/cli-bundle.mjs): its entry and every chunk it may load.
  const bundle = readdirSync(join(ROOT, "dist", "cli"), { recursive: true, encoding: "utf8" }).filter((path) => path.endsWith(".cjs"));
  expect(bundle).toContain("main.cjs");
  for (const path of bundle) expect(files).toContain(`dist/cli/${path}`);
  for (const target of Object.values(pkg.exports)) {
    const path = target.replace(/^\.\//, "");
    expect(files).toContain(path);
    if (path.endsWith(".js")) expect(files).toContain(path.replace(/\.js$/, ".d.ts"));
  }
  const schema = /\$schema=\.\/node_modules\/cubeform\/([^\s]+)/.exec(README)?.[1];
  expect(schema).toBe("schema/cubeform.schema.json");
  expect(files).toContain(schema);
  expect(files).toContain("README.md");
  const stray = [...files].filter(
    (path) => /^(test|bench)\//.test(path) || (/\.ts$/.test(path) && !path.endsWith(".d.ts") && !path.startsWith("examples/")),
  );
  expect(stray).toEqual([]);
});

test("the README's client example runs as written against the emulator (import by package name), and its bin answers", async () => {
  const example = /## The client library[\s\S]*?```js\n([\s\S]*?)```/.exec(README)?.[1];
  expect(example).toContain('from "cubeform"');
  const project = join(temp, "project");
  mkdirSync(join(project, "node_modules"), { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-fleet", private: true, type: "module" }));
  // As `npm install` of the tarball leaves it: the package under node_modules/cubeform.
  symlinkSync(ROOT, join(project, "node_modules", "cubeform"), "dir");
  writeFileSync(join(project, "cubes.mjs"), example ?? "");
  const emu = await startEmulator({ clockSpeed: 200, rateLimit: { limit: 1000, windowMs: 60_000 } });
  try {
    const env = {
      PATH: process.env.PATH ?? "",
      CUBE_API_URL: emu.url,
      CUBE_API_KEY: emu.apiKey,
      SSH_PUBLIC_KEY: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHVzZXJAZXhhbXBsZQ me@laptop",
      XDG_STATE_HOME: temp,
    };
    const first = await run(process.execPath, ["cubes.mjs"], { cwd: project, env, encoding: "utf8" });
    const created = /^created scratch \((cube_\w+)\), pending$/m.exec(first.stdout);
    expect(created, first.stdout + first.stderr).not.toBeNull();
    expect(first.stdout).toMatch(/^scratch\t\w+$/m);
    // The same idempotency key again: the first cube, not a second one.
    const second = await run(process.execPath, ["cubes.mjs"], { cwd: project, env, encoding: "utf8" });
    expect(second.stdout).toContain(`created scratch (${created?.[1]})`);
    expect(emu.admin.requests().filter((r) => r.method === "POST" && r.status === 201 && !r.replayed)).toHaveLength(1);
    // Without a key: one line and exit 1, no stack trace (issue 22 item 9).
    const { CUBE_API_KEY: _key, ...keyless } = env;
    const failed = (await run(process.execPath, ["cubes.mjs"], { cwd: project, env: keyless, encoding: "utf8" }).catch(
      (e: unknown) => e,
    )) as { code?: number; stderr?: string };
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^config: No API key: set CUBE_API_KEY/);
    expect(failed.stderr).not.toMatch(/^\s+at /m);
  } finally {
    await emu.close();
  }
  const versionFlag = await run(process.execPath, [join(project, "node_modules", "cubeform", pkg.bin.cubeform ?? ""), "--version"], {
    cwd: project,
    encoding: "utf8",
  });
  expect(versionFlag.stdout.trim()).toBe(pkg.version);
});
