/** `cubeform emulator`: serve the emulator until SIGINT/SIGTERM, then close it cleanly. */
import { resolve } from "node:path";
import { runEmulatorCommand } from "../../emulator/cli.js";
import type { CliIo } from "../io.js";

export interface EmulatorContext {
  port: number;
  apiKey?: string;
  space?: string;
  state?: string;
  rateLimit?: string;
  deliverAnywhere?: boolean;
  cwd: string;
}

export async function runEmulator(ctx: EmulatorContext, io: CliIo): Promise<number> {
  const { stop } = await runEmulatorCommand(
    {
      port: ctx.port,
      ...(ctx.apiKey !== undefined ? { apiKey: ctx.apiKey } : {}),
      ...(ctx.space !== undefined ? { space: ctx.space } : {}),
      ...(ctx.state !== undefined ? { state: resolve(ctx.cwd, ctx.state) } : {}),
      ...(ctx.rateLimit !== undefined ? { rateLimit: ctx.rateLimit } : {}),
      ...(ctx.deliverAnywhere === true ? { deliverAnywhere: true } : {}),
    },
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
