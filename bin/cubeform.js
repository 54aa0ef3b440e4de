#!/usr/bin/env node
// dist/cli is the CLI bundled (build/cli-bundle.mjs): a few files to load instead of ~110, run
// with V8's code cache (bundle-loader.js). CommonJS (bin/package.json), like the bundle: an ES
// module here would start Node's ES module loader, ~10 ms of `cubeform --version`.
"use strict";
const { join } = require("node:path");
const { loadBundle } = require("./bundle-loader.js");

// Commands that reach the API parse answers with undici's llhttp (WebAssembly), which V8 compiles
// again with TurboFan on a second thread: ~110 ms of CPU a run that a few thousand answers never
// earn back (a 10,000-cube --target plan 13 % faster without it, 1,000 cubes 8 %). Not for watch,
// which runs for hours (its rounds cost the same either way) nor where nothing is parsed. Set before
// anything is compiled: V8's code cache depends on its flags (the loader keeps one cache per set).
const command = process.argv[2] ?? "";
const KEEPS_V8_DEFAULTS = new Set([
  "",
  "validate",
  "version",
  "completion",
  "emulator",
  "watch",
  "help",
  "--version",
  "-V",
  "--help",
  "-h",
]);
const v8Flags = KEEPS_V8_DEFAULTS.has(command) ? "" : "--liftoff-only";
if (v8Flags) require("node:v8").setFlagsFromString(v8Flags);

const bundle = loadBundle(join(__dirname, "..", "dist", "cli", "main.cjs"), process.env, process.stderr, v8Flags);
const { GRACEFUL_STOP_COMMANDS, main } = bundle.exports;

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
// at once. Both say so at once. The AbortController is made when first used (a command reads
// io.signal, or a signal comes): `cubeform validate` need not load it.
let stop;
const stopper = () => (stop ??= new AbortController());
const onSignal = (signal) => {
  const code = signal === "SIGINT" ? 130 : 143;
  if (stopper().signal.aborted) {
    process.stderr.write(
      `\n${signal} again: exiting at once. A request in flight may or may not have been carried out; run \`cubeform plan\` to see the space.\n`,
    );
    process.exit(code);
  }
  const what = SENDS_REQUESTS.has(command)
    ? " Nothing new will be sent; the request in flight (if any) finishes, then what was done is reported."
    : "";
  process.stderr.write(`\n${signal}: stopping.${what} Press Ctrl-C again to exit at once.\n`);
  stopper().abort(signal);
};
const SENDS_REQUESTS = new Set(["apply", "watch", "demo"]);
const graceful = GRACEFUL_STOP_COMMANDS.has(command);
if (graceful) {
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  // Opened when first read (`-f -`): opening it is a few ms when it is a file such as /dev/null.
  get stdin() {
    return process.stdin;
  },
  env: process.env,
  get signal() {
    return stopper().signal;
  },
  build: bundle.bundleId,
  // watch connects once a round, for hours: it closes each round's connections.
  endsWithProcess: command !== "watch",
}).then((code) => {
  process.exitCode = code;
  if (graceful) {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  bundle.saveCodeCache();
});
