/** Runs the CLI in process with captured streams, in a fresh temporary directory. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { onTestFinished } from "vitest";
import { main } from "../../../reconciler/main.js";

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Lines typed on a terminal; stdin is a TTY when given. */
  ttyInput?: string;
}

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

export async function runCli(argv: string[], options: RunOptions): Promise<CliResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const stdin = Object.assign(new PassThrough(), { isTTY: options.ttyInput !== undefined });
  if (options.ttyInput !== undefined) stdin.end(options.ttyInput);
  else stdin.end();
  // The lock and the shared pacing window go to a directory of this test file, never the user's.
  const env = { XDG_STATE_HOME: testStateHome(), ...(options.env ?? {}) };
  const exitCode = await main(argv, { stdout, stderr, stdin, env, cwd: options.cwd });
  return { exitCode, stdout: stdout.text, stderr: stderr.text };
}

let stateHome: string | undefined;
process.on("exit", () => stateHome && rmSync(stateHome, { recursive: true, force: true }));

/** This test file's state directory (XDG_STATE_HOME) unless a test passes its own. */
export function testStateHome(): string {
  stateHome ??= mkdtempSync(join(tmpdir(), "cubeform-state-"));
  return stateHome;
}

/** A temporary project directory, removed when the test ends. */
export function tempProject(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "cubeform-cli-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

export const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGNvbnRyb2xsZWQtdGVzdC1rZXktZm9yLWN1YmVmb3Jt test@cubeform";

/** A file's first lines: its version and the defaults every cube of a test takes (append webhooks, cubes…). */
export const DEFAULTS_HEADER = `apiVersion: cubeform/v1
defaults:
  image: ubuntu-24.04
  resources: { vcpu: 1, ramGb: 1, diskGb: 10 }
  sshPublicKey: ${SSH_KEY}
`;

/** A file's first lines up to `cubes:` (append the cube items). */
export const FILE_HEADER = `${DEFAULTS_HEADER}cubes:\n`;
