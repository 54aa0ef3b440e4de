#!/usr/bin/env node
import { main } from "../dist/reconciler/main.js";

// The first SIGINT/SIGTERM asks the running command to stop cleanly (an apply finishes the
// request in flight, watch ends its round); a second one exits at once.
const stop = new AbortController();
const onSignal = (signal) => {
  if (stop.signal.aborted) process.exit(signal === "SIGINT" ? 130 : 143);
  stop.abort(signal);
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  signal: stop.signal,
});
process.off("SIGINT", onSignal);
process.off("SIGTERM", onSignal);
