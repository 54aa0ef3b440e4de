/**
 * Signals at apply's confirmation prompt (issue 20 item 7): on a real terminal (a pty from
 * `script`), Ctrl-C (SIGINT) or SIGTERM while apply waits for "yes" exits at once — 130 / 143 —
 * sends nothing, and frees the space lock for the next run.
 */
import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { testCacheHome } from "../support/cache-home.js";
import { BIN, FLEET, RATE, describeRun, project, testStateHome, waitFor, type Project } from "./support.js";

const shellQuote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** `cubeform apply` with stdin and stdout on a pseudo-terminal; answers its pid and output. */
function applyOnTerminal(p: Project) {
  const command = `echo "pid=$$"; exec ${[process.execPath, BIN, "apply", ...RATE].map(shellQuote).join(" ")}`;
  const env = {
    PATH: process.env.PATH ?? "",
    NO_COLOR: "1",
    XDG_STATE_HOME: testStateHome(),
    ...testCacheHome(),
    ...p.env,
    SHELL: "/bin/sh",
  };
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: p.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { output: () => output, exited, pid: () => Number(/pid=(\d+)/.exec(output)?.[1]) };
}

test.each([
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const)("%s at the prompt exits at once with %i, changes nothing, and frees the lock", async (signal, code) => {
  const p = await project({ "cubeform.yaml": FLEET });
  const run = applyOnTerminal(p);
  await waitFor(() => (/Apply these \d+ changes\? \(yes\/no\)/.test(run.output()) ? true : undefined), {
    timeoutMs: 20_000,
    message: "the prompt",
  });
  const sentAt = performance.now();
  process.kill(run.pid(), signal);
  expect(await run.exited, run.output()).toBe(code);
  expect(performance.now() - sentAt).toBeLessThan(5_000);
  expect(run.output()).toMatch(new RegExp(`apply cancelled at the prompt \\(${signal}\\): nothing was changed`));
  expect(p.mutations()).toBe(0);
  // The lock is free: another apply does not wait for it.
  const next = await p.run(["apply", "--auto-approve", "--lock-timeout", "0", ...RATE]);
  expect(next.code, describeRun(next)).toBe(0);
});
