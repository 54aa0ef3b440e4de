/** `cubeform emulator`: starts the emulator and prints how to point a client at it. */
import type { RunningEmulator } from "./types.js";
import { startEmulator } from "./server.js";
import { parseRate, type Rate } from "../system/time.js";

export interface EmulatorCommandOptions {
  port?: number;
  apiKey?: string;
  space?: string;
  state?: string;
  /** "N/SECONDS", e.g. "10/60". */
  rateLimit?: string;
  /** Webhook deliveries to any address, not only loopback ones. */
  deliverAnywhere?: boolean;
}

export interface EmulatorCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Aborted when the emulator should stop; without one, SIGTERM/SIGINT stop it. */
  signal?: AbortSignal;
}

export { InvalidValueError as EmulatorCommandError } from "../system/time.js";

/** Parses "N/SECONDS" (N requests per SECONDS seconds). */
export function parseRateLimit(text: string): Rate {
  return parseRate(text, "--rate-limit");
}

export async function runEmulatorCommand(
  opts: EmulatorCommandOptions,
  io: EmulatorCommandIo,
): Promise<{ emulator: RunningEmulator; stop(): Promise<void> }> {
  const rateLimit = opts.rateLimit === undefined ? undefined : parseRateLimit(opts.rateLimit);
  const emulator = await startEmulator({
    port: opts.port,
    apiKey: opts.apiKey,
    spaceId: opts.space,
    statePath: opts.state,
    rateLimit,
    deliverAnywhere: opts.deliverAnywhere,
  });
  io.stdout.write(`Cube API emulator listening on ${emulator.url}\n`);
  io.stdout.write(`Space: ${emulator.spaceId}\n`);
  // A key the user supplied is never echoed; a generated one is shown once, here.
  if (opts.apiKey === undefined) io.stdout.write(`API key (owner, generated): ${emulator.apiKey}\n`);
  if (opts.state !== undefined) io.stdout.write(`State file: ${opts.state}\n`);
  io.stdout.write(
    opts.deliverAnywhere === true
      ? "Webhook deliveries: to any address (--deliver-anywhere)\n"
      : "Webhook deliveries: to loopback addresses only (--deliver-anywhere for any)\n",
  );
  io.stdout.write(`export CUBE_API_URL=${emulator.url}\n`);
  io.stdout.write(`export CUBE_SPACE_ID=${emulator.spaceId}\n`);
  if (opts.apiKey === undefined) io.stdout.write(`export CUBE_API_KEY=${emulator.apiKey}\n`);

  // On stop the state is flushed and the server closed, and the process ends by itself. Writes are coalesced
  // (core/store.ts): should it end another way (process.exit), an "exit" listener writes pending changes.
  const detach = onStopRequest(io.signal, () => void stop());
  const flushOnExit = () => emulator.admin.flushState();
  process.once("exit", flushOnExit);
  const stop = async () => {
    detach();
    process.off("exit", flushOnExit);
    await emulator.close();
  };
  return { emulator, stop };
}

function onStopRequest(signal: AbortSignal | undefined, handler: () => void): () => void {
  if (signal !== undefined) {
    signal.addEventListener("abort", handler, { once: true });
    return () => signal.removeEventListener("abort", handler);
  }
  process.once("SIGTERM", handler);
  process.once("SIGINT", handler);
  return () => {
    process.off("SIGTERM", handler);
    process.off("SIGINT", handler);
  };
}
