#!/usr/bin/env node
// dist/cli is the CLI bundled (build/cli-bundle.mjs): a few files to load instead of ~110.
import { GRACEFUL_STOP_COMMANDS, main } from "../dist/cli/main.js";

// `cubeform --help | head` closes the pipe early: that is not an error. A command that changes
// the space (`apply … | head`) finishes what it started: its output is dropped, not its work.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code !== "EPIPE") throw error;
    if (!GRACEFUL_STOP_COMMANDS.has(process.argv[2] ?? "")) process.exit(process.exitCode ?? 0);
    stream.write = (_chunk, encodingOrDone, done) => {
      (typeof encodingOrDone === "function" ? encodingOrDone : done)?.();
      return true;
    };
  });
}

// For commands that stop gracefully, the first SIGINT/SIGTERM asks them to stop: nothing new is
// sent, the request in flight finishes, the command reports what was done. A second one exits
// at once. Both say so at once.
const stop = new AbortController();
const onSignal = (signal) => {
  const code = signal === "SIGINT" ? 130 : 143;
  if (stop.signal.aborted) {
    process.stderr.write(`\n${signal} again: exiting at once. A request in flight may or may not have been carried out; run \`cubeform plan\` to see the space.\n`);
    process.exit(code);
  }
  const what = SENDS_REQUESTS.has(command) ? " Nothing new will be sent; the request in flight (if any) finishes, then what was done is reported." : "";
  process.stderr.write(`\n${signal}: stopping.${what} Press Ctrl-C again to exit at once.\n`);
  stop.abort(signal);
};
const command = process.argv[2] ?? "";
const SENDS_REQUESTS = new Set(["apply", "watch", "demo"]);
const graceful = GRACEFUL_STOP_COMMANDS.has(command);
if (graceful) {
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  signal: stop.signal,
});
if (graceful) {
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
}
