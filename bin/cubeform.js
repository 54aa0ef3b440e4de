#!/usr/bin/env node
import { GRACEFUL_STOP_COMMANDS, main } from "../dist/reconciler/main.js";

// `cubeform --help | head` closes the pipe early: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// For commands that stop gracefully, the first SIGINT/SIGTERM asks them to stop (an apply
// finishes the request in flight, watch ends its round); a second one exits at once.
const stop = new AbortController();
const onSignal = (signal) => {
  if (stop.signal.aborted) process.exit(signal === "SIGINT" ? 130 : 143);
  stop.abort(signal);
};
const graceful = GRACEFUL_STOP_COMMANDS.has(process.argv[2] ?? "");
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
