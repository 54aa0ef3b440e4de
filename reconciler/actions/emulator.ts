/** `cubeform emulator`: serve the emulator until SIGINT/SIGTERM, then close it cleanly. */
import { resolve } from "node:path";
import { runEmulatorCommand, type EmulatorCommandOptions } from "../../emulator/cli.js";
import type { CliIo } from "../io.js";

export type EmulatorContext = EmulatorCommandOptions & { cwd: string };

export async function runEmulator({ cwd, ...options }: EmulatorContext, io: CliIo): Promise<number> {
  const { stop } = await runEmulatorCommand(
    { ...options, state: options.state === undefined ? undefined : resolve(cwd, options.state) },
    io,
  );
  await untilAborted(io.signal);
  // The emulator's own handler may have closed it already; closing twice is harmless here.
  await stop().catch(() => undefined);
  return 0;
}

/** bin/cubeform.js aborts the signal on SIGINT/SIGTERM; without a signal the emulator serves until the process ends. */
function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    if (signal === undefined) return;
    if (signal.aborted) return done();
    signal.addEventListener("abort", () => done(), { once: true });
  });
}
