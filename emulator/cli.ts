/** `cubeform emulator`: starts the emulator and prints how to point a client at it. */
import type { RunningEmulator } from "./index.js";
import { startEmulator } from "./server.js";

export interface EmulatorCommandOptions {
  port?: number;
  apiKey?: string;
  space?: string;
  state?: string;
  /** "N/SECONDS", e.g. "10/60". */
  rateLimit?: string;
}

export interface EmulatorCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export class EmulatorCommandError extends Error {
  readonly code = "invalid_option";
}

/** Parses "N/SECONDS" (N requests per SECONDS seconds). */
export function parseRateLimit(text: string): { limit: number; windowMs: number } {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  const limit = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (!match || !(limit >= 1) || !(seconds > 0)) {
    throw new EmulatorCommandError(`--rate-limit must look like N/SECONDS with N ≥ 1 and SECONDS > 0, e.g. 10/60 (got "${text}")`);
  }
  return { limit, windowMs: Math.round(seconds * 1000) };
}

export async function runEmulatorCommand(
  opts: EmulatorCommandOptions,
  io: EmulatorCommandIo,
): Promise<{ emulator: RunningEmulator; stop(): Promise<void> }> {
  const rateLimit = opts.rateLimit === undefined ? undefined : parseRateLimit(opts.rateLimit);
  const emulator = await startEmulator({ port: opts.port, apiKey: opts.apiKey, spaceId: opts.space, statePath: opts.state, rateLimit });
  io.stdout.write(`Cube API emulator listening on ${emulator.url}\n`);
  io.stdout.write(`Space: ${emulator.spaceId}\n`);
  // A key the user supplied is never echoed; a generated one is shown once, here.
  if (opts.apiKey === undefined) io.stdout.write(`API key (owner, generated): ${emulator.apiKey}\n`);
  if (opts.state !== undefined) io.stdout.write(`State file: ${opts.state}\n`);
  io.stdout.write(`export CUBE_API_URL=${emulator.url}\n`);
  io.stdout.write(`export CUBE_SPACE_ID=${emulator.spaceId}\n`);
  if (opts.apiKey === undefined) io.stdout.write(`export CUBE_API_KEY=${emulator.apiKey}\n`);

  // On SIGTERM/SIGINT the state is flushed and the server closed; with nothing else
  // holding the event loop, the process then ends by itself.
  const onSignal = () => void stop();
  const stop = async () => {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    await emulator.close();
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  return { emulator, stop };
}
