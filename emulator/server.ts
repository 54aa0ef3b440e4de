import type { EmulatorOptions, RunningEmulator } from "./index.js";

export async function startEmulator(_options: EmulatorOptions = {}): Promise<RunningEmulator> {
  throw new Error("emulator not implemented yet");
}
